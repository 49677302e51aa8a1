/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Damaged traces. babeltrace2 refuses a whole trace when one stream file cannot be indexed
 * (a file truncated mid-packet), loops forever on packetized metadata cut inside a packet,
 * and aborts on some packet headers (sizes past 2^63 bits, all-ones times and counts). So:
 * metadata packets, and LTTng's stream packets, are checked before babeltrace2 sees them,
 * and a trace whose stream file is refused is read again through a directory of symbolic
 * links to its metadata and its other stream files, the damaged one's sound packets copied.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "an.h"
#include "analysis.h"
#include "lttng_packet.h"
#include "regular.h"
#include "salvage.h"

#define TSDL_MAGIC  0x75d11d57U
#define META_HEADER 37 /* magic, uuid[16], checksum, content_size, packet_size, 5 bytes */

/*
 * The event classes a metadata's text declares, counted as it is read in pieces: each
 * keyword "event" followed by a block ("{"), as babeltrace2's lexer reads the text. Blanks
 * and comments (a class all the same) may stand between them; a string or a character
 * literal (escapes and all) is no code, and holds no comment. On metadata babeltrace2
 * parses the count is its own; text it cannot parse makes no class at all, whatever this
 * counts of it. Any C blank is one here (babeltrace2 refuses those past space, tab, CR
 * and newline): a count too high refuses only what babeltrace2 would.
 */
enum lex { CODE, SLASH, LINE_COMMENT, COMMENT, COMMENT_STAR, QUOTED, QUOTED_ESCAPE };

struct classes {
	uint64_t n;
	enum lex lex;
	unsigned char quote; /* QUOTED: the quote that ends it */
	bool ident;	     /* in an identifier */
	unsigned matched;    /* of it, the bytes of "event" (past them: another word) */
	bool after;	     /* the keyword "event" read: a block next? */
};

/* A byte of code, not in a comment or a literal. */
static void code(struct classes *c, unsigned char ch)
{
	static const char kw[] = "event";
	bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';

	/* A number's digits are no identifier's: "1event" is 1 then the keyword. */
	if (letter || (c->ident && ch >= '0' && ch <= '9')) {
		if (!c->ident) {
			c->ident = true;
			c->matched = 0;
			c->after = false;
		}
		c->matched = c->matched < sizeof(kw) - 1 && ch == (unsigned char)kw[c->matched]
				     ? c->matched + 1
				     : sizeof(kw);
		return;
	}
	if (c->ident) {
		c->ident = false;
		c->after = c->matched == sizeof(kw) - 1;
	}
	if (ch == ' ' || (ch >= '\t' && ch <= '\r'))
		return;
	if (ch == '/') {
		c->lex = SLASH; /* a comment, or a token: the next byte says */
		return;
	}
	if (c->after && ch == '{')
		c->n++;
	c->after = false;
	if (ch == '"' || ch == '\'') {
		c->lex = QUOTED;
		c->quote = ch;
	}
}

static void count_classes(struct classes *c, const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = p[i];

		switch (c->lex) {
		case CODE:
			code(c, ch);
			break;
		case SLASH:
			if (ch == '*' || ch == '/') {
				c->lex = ch == '*' ? COMMENT : LINE_COMMENT;
				break;
			}
			c->lex = CODE;
			c->after = false; /* "/" was a token of its own */
			code(c, ch);
			break;
		case LINE_COMMENT:
			if (ch == '\n')
				c->lex = CODE;
			break;
		case COMMENT:
			if (ch == '*')
				c->lex = COMMENT_STAR;
			break;
		case COMMENT_STAR:
			if (ch == '/')
				c->lex = CODE;
			else if (ch != '*')
				c->lex = COMMENT;
			break;
		case QUOTED:
			if (ch == '\\')
				c->lex = QUOTED_ESCAPE;
			else if (ch == c->quote)
				c->lex = CODE;
			break;
		case QUOTED_ESCAPE:
			c->lex = QUOTED;
			break;
		}
	}
}

/* Bytes [from, from + len) of f into c; false: they could not be read. */
static bool count_range(FILE *f, long from, uint64_t len, struct classes *c)
{
	unsigned char buf[1 << 16];

	if (fseek(f, from, SEEK_SET) != 0)
		return false;
	while (len) {
		size_t want = len < sizeof(buf) ? (size_t)len : sizeof(buf);

		if (fread(buf, 1, want, f) != want)
			return false;
		count_classes(c, buf, want);
		len -= want;
	}
	return true;
}

int an_check_metadata(const char *dir, const struct an_options *opt, char **why)
{
	uint64_t max = opt && opt->max_metadata ? opt->max_metadata : AN_METADATA_MAX_DEFAULT;
	uint64_t max_classes = opt && opt->max_event_classes ? opt->max_event_classes
							     : AN_EVENT_CLASSES_MAX_DEFAULT;
	char *path = an_asprintf("%s/metadata", dir), *cannot = NULL;
	unsigned char h[META_HEADER];
	FILE *f = path ? an_fopen_regular(path, &cannot) : NULL;
	struct classes c = {0};
	long off = 0, size;
	bool packets = false;
	int r = 0;

	if (!f) {
		*why = cannot ? an_asprintf("%s: the trace is left out", cannot)
			      : an_asprintf("%s: out of memory", dir);
		free(cannot);
		free(path);
		return -EIO;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	/* libbabeltrace2 parses the whole of it, for each thread reading the trace: its time
	 * grows faster than the event classes' count. Bounded before it sees it. */
	if (size > 0 && (uint64_t)size > max) {
		fclose(f);
		*why = an_asprintf("%s: %ld bytes of metadata, over the limit of %llu bytes "
				   "(latencyctl analyze --max-metadata): the trace is left out",
				   path, size, (unsigned long long)max);
		free(path);
		return -EFBIG;
	}
	/* Text metadata (no magic) is parsed by babeltrace2 and errors cleanly. */
	while (off < size && fseek(f, off, SEEK_SET) == 0 && fread(h, 1, 4, f) == 4) {
		uint32_t magic = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 |
				 (uint32_t)h[3] << 24;
		uint32_t content, packet;

		if (magic != TSDL_MAGIC)
			break;
		packets = true;
		if (fread(h + 4, 1, META_HEADER - 4, f) != META_HEADER - 4) {
			r = -EBADMSG;
			break;
		}
		content = (uint32_t)h[24] | (uint32_t)h[25] << 8 | (uint32_t)h[26] << 16 |
			  (uint32_t)h[27] << 24;
		packet = (uint32_t)h[28] | (uint32_t)h[29] << 8 | (uint32_t)h[30] << 16 |
			 (uint32_t)h[31] << 24;
		if (packet < 8 * META_HEADER || content > packet || off + packet / 8 > size) {
			r = -EBADMSG;
			break;
		}
		/* The text is the packets' content, their headers between. */
		if (content >= 8 * META_HEADER &&
		    !count_range(f, off + META_HEADER, content / 8 - META_HEADER, &c)) {
			r = -EBADMSG;
			break;
		}
		off += packet / 8;
	}
	if (r < 0)
		*why = an_asprintf("%s: truncated or damaged metadata packet at byte %ld (file of "
				   "%ld bytes): the trace cannot be decoded",
				   path, off, size);
	else if (!packets && size > 0 && !count_range(f, 0, (uint64_t)size, &c))
		r = -EIO;
	if (r == -EIO)
		*why = an_asprintf("%s: %s", path, strerror(EIO));
	if (r == 0 && c.n > max_classes) {
		*why = an_asprintf("%s: %llu event classes, over the limit of %llu (latencyctl "
				   "analyze --max-event-classes): the trace is left out",
				   path, (unsigned long long)c.n, (unsigned long long)max_classes);
		r = -EFBIG;
	}
	fclose(f);
	free(path);
	return r;
}

#define INDEX_MAGIC 0xc1f1dcc1U

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * Without an index (snapshots have none): LTTng's packets followed from the file's start
 * while each is there whole and ends by byte limit; f NULL: none.
 */
static uint64_t scan_packets(FILE *f, uint64_t size, uint64_t limit, unsigned *count)
{
	struct an_lttng_packet p;
	uint64_t end = 0;

	*count = 0;
	while (f && an_lttng_packet_at(f, end, size, &p) && p.bytes <= limit - end) {
		end += p.bytes;
		(*count)++;
	}
	return end;
}

/*
 * The bytes of path's complete packets (*count of them), by their headers, up to where its
 * LTTng index says they end, if it has one (big-endian: a header of magic, major, minor,
 * entry length; entries starting offset (bytes), packet_size (bits)).
 */
static uint64_t complete_packets(const char *path, uint64_t size, unsigned *count)
{
	char *real = realpath(path, NULL), *slash = real ? strrchr(real, '/') : NULL, *idx;
	unsigned char h[16], *ent = NULL;
	uint64_t end = 0, len;
	FILE *f = NULL;

	if (!slash)
		goto out;
	*slash = 0;
	idx = an_asprintf("%s/index/%s.idx", real, slash + 1);
	f = idx ? an_fopen_regular(idx, NULL) : NULL;
	free(idx);
	if (!f || fread(h, 1, 16, f) != 16 || be(h, 4) != INDEX_MAGIC)
		goto out;
	len = be(h + 12, 4);
	if (len < 16 || len > 4096 || !(ent = malloc(len)))
		goto out;
	while (fread(ent, 1, len, f) == len) {
		uint64_t off = be(ent, 8), bytes = be(ent + 8, 8) / 8;

		if (off != end || off + bytes > size || !bytes)
			break;
		end = off + bytes;
	}
out:
	if (f)
		fclose(f);
	free(ent);
	free(real);
	/*
	 * The index says where the tracer's packets end, not whether babeltrace2 can read them,
	 * nor that their headers say the same (a copy cut inside a packet is refused again):
	 * the last end of a packet by its headers, at or before the index's.
	 */
	f = an_fopen_regular(path, NULL);
	end = scan_packets(f, size, end ? end : size, count);
	if (f)
		fclose(f);
	return end;
}

int an_check_streams(const char *dir, char **why)
{
	DIR *d = an_trace_is_lttng(dir) ? opendir(dir) : NULL;
	struct dirent *de;
	int r = 0;

	while (d && !r && (de = readdir(d))) {
		char *path = an_asprintf("%s/%s", dir, de->d_name);
		uint64_t off, size;
		unsigned packets;
		FILE *f = NULL;
		struct stat st;

		/* What is not a regular file babeltrace2's source leaves out too. */
		if (!path || de->d_name[0] == '.' || strcmp(de->d_name, "metadata") == 0 ||
		    !(f = an_fopen_regular(path, NULL)) || fstat(fileno(f), &st) < 0) {
			if (f)
				fclose(f);
			free(path);
			continue;
		}
		size = (uint64_t)st.st_size;
		off = scan_packets(f, size, size, &packets);
		fclose(f);
		if (off < size) {
			*why = an_asprintf("%s: the packet at byte %llu is cut short or says what "
					   "babeltrace2 cannot read (sizes, all-ones fields)",
					   path, (unsigned long long)off);
			r = -EBADMSG;
		}
		free(path);
	}
	if (d)
		closedir(d);
	return r;
}

int an_copy_range(const char *from, const char *to, uint64_t off, uint64_t n)
{
	int in = an_open_regular(from, NULL), out = -1, r = 0;
	loff_t at = (loff_t)off;
	char buf[65536];

	if (in < 0)
		r = in;
	else if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
		r = -errno;
	/* In the kernel, without a copy through user space; else by hand (EXDEV, ENOSYS). */
	while (!r && n) {
		ssize_t k = copy_file_range(in, &at, out, NULL, n, 0);

		if (k > 0) {
			n -= (uint64_t)k;
			continue;
		}
		if (k == 0) {
			r = -EIO; /* the file is shorter than said */
			break;
		}
		if (errno != EXDEV && errno != ENOSYS && errno != EOPNOTSUPP && errno != EINVAL) {
			r = -errno;
			break;
		}
		while (!r && n) {
			ssize_t got = pread(in, buf, n < sizeof(buf) ? n : sizeof(buf), at), put;

			if (got <= 0) {
				r = got < 0 ? -errno : -EIO;
			} else if ((put = write(out, buf, (size_t)got)) != got) {
				r = put < 0 ? -errno : -ENOSPC;
			} else {
				at += got;
				n -= (uint64_t)got;
			}
		}
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && !r)
		r = -errno;
	return r;
}

static void push(struct an_vec *v, char *s)
{
	char **slot = s ? an_vec_push(v) : NULL;

	if (slot)
		*slot = s;
	else
		free(s);
}

int an_link_into(const char *tmp, const char *dir, const char *name)
{
	char *from = an_asprintf("%s/%s", dir, name), *to = an_asprintf("%s/%s", tmp, name);
	char *abs = from ? realpath(from, NULL) : NULL;
	int r = abs && to && symlink(abs, to) == 0 ? 0 : errno ? -errno : -ENOMEM;

	free(from);
	free(to);
	free(abs);
	return r;
}

/*
 * Name of a previous salvage directory into tmp: its links linked again, its copies (the
 * sound packets of a damaged file) moved, as that directory is removed once this one
 * replaces it.
 */
static int carry(const char *tmp, const char *dir, const char *name)
{
	char *from = an_asprintf("%s/%s", dir, name), *to = an_asprintf("%s/%s", tmp, name);
	struct stat st;
	int r = -ENOMEM;

	if (from && to)
		r = lstat(from, &st) == 0 && S_ISREG(st.st_mode)
			    ? (rename(from, to) == 0 ? 0 : -errno)
			    : an_link_into(tmp, dir, name);
	free(from);
	free(to);
	return r;
}

int an_salvage(const char *dir, bool again, const char *error, char **tmpdir,
	       struct an_vec *dropped)
{
	const char *base = getenv("TMPDIR");
	DIR *d = opendir(dir);
	struct dirent *de;
	char *tmp = an_asprintf("%s/latency-analysis.XXXXXX", base && *base ? base : "/tmp");
	size_t kept = 0;
	int r = 0;

	*tmpdir = NULL;
	if (!d || !tmp || !mkdtemp(tmp)) {
		r = -errno ? -errno : -ENOMEM;
		goto out;
	}
	while ((de = readdir(d))) {
		char *path = an_asprintf("%s/%s", dir, de->d_name);
		struct stat st;

		if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (strcmp(de->d_name, "metadata") != 0 && error && strstr(error, path)) {
			unsigned packets;
			uint64_t keep = complete_packets(path, (uint64_t)st.st_size, &packets);
			char *to = an_asprintf("%s/%s", tmp, de->d_name);

			/*
			 * All of it whole by its headers, yet refused: what is wrong is past what
			 * the headers say (a stream class the metadata lacks). Kept whole it would be
			 * refused again, for ever: left out.
			 */
			if (keep && keep < (uint64_t)st.st_size && to &&
			    an_copy_range(path, to, 0, keep) == 0) {
				kept++;
				push(dropped,
				     an_asprintf("%s: damaged, its first %u complete packets kept "
						 "(%llu of "
						 "%lld bytes), the rest left out",
						 de->d_name, packets, (unsigned long long)keep,
						 (long long)st.st_size));
			} else {
				push(dropped, an_asprintf("%s: damaged stream file left out "
							  "(events of its CPU are "
							  "missing)",
							  de->d_name));
			}
			free(to);
			free(path);
			continue;
		}
		free(path);
		if ((again ? carry(tmp, dir, de->d_name) : an_link_into(tmp, dir, de->d_name)) ==
			    0 &&
		    strcmp(de->d_name, "metadata") != 0)
			kept++;
	}
	if (!dropped->n || !kept) {
		an_rm_salvage(tmp);
		r = -ENOENT;
		goto out;
	}
	*tmpdir = tmp;
	tmp = NULL;
out:
	if (d)
		closedir(d);
	free(tmp);
	return r;
}

void an_rm_salvage(const char *tmpdir)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *p = an_asprintf("%s/%s", tmpdir, de->d_name);

		if (p && de->d_name[0] != '.')
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
}
