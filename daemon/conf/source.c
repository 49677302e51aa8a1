/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The text libconfig parses, read by latencyd itself: libconfig opens no file. Its scanner
 * blocks on a FIFO, exit()s the process on a directory named by an @include, and keeps a
 * plain integer in 32 bits (Debian 12's 1.5). Each file here is opened only once known to
 * be a regular file, of bounded size, and each @include is replaced by the text it names,
 * up to a bounded number of files; a map from the text's lines back to the files gives
 * every message its FILE:LINE.
 * The scan follows libconfig 1.5's scanner (lib/scanner.l): comments, strings, and an
 * @include only at the start of a line outside both; its state goes on across files.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf_internal.h"
#include "regular_open.h"

#define INCLUDE_DEPTH_MAX 10 /* libconfig's own limit */
/*
 * Files read for one text, the first and its @include files: within the depth, a file that
 * includes itself on 2 lines makes 2^10 reads, on 200 lines 200^10.
 */
#define FILES_MAX	  64
/* Problems said one by one, the rest counted: an @include loop makes thousands. */
#define SAID_MAX	  50
#define BOM		  "\xef\xbb\xbf"

/*
 * PATH is opened for reading only once known to be a regular file (regular_open.h): opening
 * a device can act, a FIFO's open waits for a writer. WHY says why not.
 */
static int open_regular(const char *path, struct stat *st, char *why, size_t whylen)
{
	int fd = regular_open(path, st);

	if (fd == -EINVAL)
		snprintf(why, whylen, "not a regular file");
	else if (fd == -ESTALE)
		snprintf(why, whylen, "replaced by another file while opened");
	else if (fd < 0)
		snprintf(why, whylen, "%s", strerror(-fd));
	return fd;
}

char *conf_file_read(const char *path, size_t max, size_t *len, char *why, size_t whylen)
{
	size_t n = 0, cap;
	char *buf = NULL, *v;
	struct stat st;
	ssize_t got;
	int fd, e = 0;

	fd = open_regular(path, &st, why, whylen);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	/* Room for the size said and one byte more: a file that grew since is read on. */
	if ((uint64_t)st.st_size > max)
		e = EFBIG;
	else if (!(buf = malloc((cap = (size_t)st.st_size + 1) + 1)))
		e = ENOMEM;
	while (!e) {
		if (n == cap && n > max) {
			e = EFBIG;
			break;
		}
		if (n == cap) {
			cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			if (!(v = realloc(buf, cap + 1))) {
				e = ENOMEM;
				break;
			}
			buf = v;
		}
		got = read(fd, buf + n, cap - n);
		if (got == 0)
			break;
		if (got < 0 && errno != EINTR)
			e = errno;
		else if (got > 0)
			n += (size_t)got;
	}
	if (e == EFBIG)
		snprintf(why, whylen, "larger than %zu %s", max >= 1 << 20 ? max >> 20 : max >> 10,
			 max >= 1 << 20 ? "MiB" : "KiB");
	else if (e)
		snprintf(why, whylen, "%s", strerror(e));
	close(fd);
	if (e) {
		free(buf);
		errno = e;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

enum { S_INITIAL, S_COMMENT, S_STRING };

struct scan {
	struct conf_text *t;
	int state;
	char last;	    /* the last token: 'n' a name, '=' after one, else its character */
	char pending[128];  /* the last name */
	char current[512];  /* the full name of the setting being read */
	char path[512];	    /* the open groups' full name */
	size_t stack[32];   /* path's length before each open group */
	unsigned depth;	    /* open groups */
	unsigned anonymous; /* groups without a name so far (a list's elements) */
};

__attribute__((format(printf, 5, 0))) static void
problem(struct conf_text *t, bool always, unsigned file, unsigned line, const char *fmt, va_list ap)
{
	char *msg = NULL;

	t->errors++;
	if (!always && t->said >= SAID_MAX) {
		t->unsaid++;
		return;
	}
	t->said++;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	conf_diag_line(t->diag, "%s:%u: %s", t->files[file], line, msg ?: strerror(ENOMEM));
	free(msg);
}

__attribute__((format(printf, 4, 5))) static void fail(struct conf_text *t, unsigned file,
						       unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problem(t, false, file, line, fmt, ap);
	va_end(ap);
}

/* The problem that stops the scan: said past SAID_MAX too, the text is not parsed. */
__attribute__((format(printf, 4, 5))) static void stop(struct conf_text *t, unsigned file,
						       unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problem(t, true, file, line, fmt, ap);
	va_end(ap);
	t->cut_short = true;
}

static int out(struct conf_text *t, const char *p, size_t n)
{
	char *v;

	if (t->len + n > CONF_FILE_MAX) {
		conf_diag_line(t->diag, "%s: with its @include files, larger than %d MiB",
			       t->files[0], CONF_FILE_MAX >> 20);
		t->errors++;
		t->cut_short = true;
		return -EFBIG;
	}
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;

		v = realloc(t->text, cap);
		if (!v) {
			t->errors++;
			t->cut_short = true;
			conf_diag_line(t->diag, "%s: %s", t->files[0], strerror(ENOMEM));
			return -ENOMEM;
		}
		t->text = v;
		t->cap = cap;
	}
	memcpy(t->text + t->len, p, n);
	t->len += n;
	t->text[t->len] = 0;
	for (const char *q = p; (q = memchr(q, '\n', (size_t)(p + n - q))); q++)
		t->line++;
	return 0;
}

/* From here on the text's lines are FILE's, from FILE_LINE. */
static int span(struct conf_text *t, unsigned file, unsigned file_line)
{
	struct conf_span *v;

	if (t->n_spans && t->spans[t->n_spans - 1].line == t->line) {
		t->n_spans--;
	} else {
		v = realloc(t->spans, (t->n_spans + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->spans = v;
	}
	t->spans[t->n_spans++] = (struct conf_span){t->line, file, file_line};
	return 0;
}

static int add_file(struct conf_text *t, const char *name)
{
	char **v = realloc(t->files, (t->n_files + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->files = v;
	v[t->n_files] = strdup(name);
	if (!v[t->n_files])
		return -ENOMEM;
	return (int)t->n_files++;
}

static int add_string(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '*';
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '*';
}

/* "name =" or "name :": the setting's full name, kept for duplicates and messages. */
static int setting_named(struct scan *s)
{
	size_t max = sizeof(s->current) - 1, n = strlen(s->path), m = strlen(s->pending);
	struct conf_text *t = s->t;
	struct conf_name *v;

	/* Cut to fit: the name is only said in messages. */
	n = n < max ? n : max;
	memcpy(s->current, s->path, n);
	if (n && n < max)
		s->current[n++] = '.';
	m = m < max - n ? m : max - n;
	memcpy(s->current + n, s->pending, m);
	s->current[n + m] = 0;
	if (t->n_names == t->names_cap) {
		v = realloc(t->names, (t->names_cap * 2 + 16) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->names = v;
		t->names_cap = t->names_cap * 2 + 16;
	}
	v = t->names;
	v[t->n_names].name = strdup(s->current);
	v[t->n_names].line = t->line;
	if (!v[t->n_names].name)
		return -ENOMEM;
	t->n_names++;
	return 0;
}

static void group_open(struct scan *s)
{
	size_t len = strlen(s->path);

	if (s->depth < sizeof(s->stack) / sizeof(s->stack[0]))
		s->stack[s->depth] = len;
	s->depth++;
	if (s->last == '=')
		memcpy(s->path, s->current, sizeof(s->path));
	else
		snprintf(s->path + len, sizeof(s->path) - len, "%s#%u", len ? "." : "",
			 ++s->anonymous);
}

static void group_close(struct scan *s)
{
	if (!s->depth)
		return;
	s->depth--;
	if (s->depth < sizeof(s->stack) / sizeof(s->stack[0]))
		s->path[s->stack[s->depth]] = 0;
}

enum number { N_NONE, N_FLOAT, N_INT, N_INT64, N_HEX, N_HEX64 };

static size_t digits(const char *p)
{
	size_t n = 0;

	while (isdigit((unsigned char)p[n]))
		n++;
	return n;
}

static size_t exponent(const char *p)
{
	size_t n;

	if (*p != 'e' && *p != 'E')
		return 0;
	n = 1 + (p[1] == '-' || p[1] == '+');
	return digits(p + n) ? n + digits(p + n) : 0;
}

/* The longest of libconfig's number tokens at P (scanner.l's float, integer, hex...). */
static size_t number_token(const char *p, enum number *kind)
{
	size_t sign = *p == '-' || *p == '+', d = digits(p + sign), best = 0, n;

	*kind = N_NONE;
	/* [-+]?[0-9]*\.[0-9]*([eE][-+]?[0-9]+)? */
	if (p[sign + d] == '.') {
		n = sign + d + 1;
		n += digits(p + n);
		n += exponent(p + n);
		best = n, *kind = N_FLOAT;
	}
	/* [-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+ */
	if (d) {
		n = sign + d;
		if (p[n] == '.')
			n += 1 + digits(p + n + 1);
		if (exponent(p + n) && n + exponent(p + n) > best)
			best = n + exponent(p + n), *kind = N_FLOAT;
		if (sign + d > best)
			best = sign + d, *kind = N_INT;
		if (p[sign + d] == 'L' && sign + d + 1 + (p[sign + d + 1] == 'L') > best)
			best = sign + d + 1 + (p[sign + d + 1] == 'L'), *kind = N_INT64;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		n = 2;
		while (isxdigit((unsigned char)p[n]))
			n++;
		if (n > best)
			best = n, *kind = N_HEX;
		if (p[n] == 'L' && n + 1 + (p[n + 1] == 'L') > best)
			best = n + 1 + (p[n + 1] == 'L'), *kind = N_HEX64;
	}
	return best;
}

/*
 * A number token, checked as libconfig 1.5 cannot: an integer past 32 bits gets the L that
 * makes libconfig keep 64 bits; past 64 bits, or a float it would round to infinity or
 * below the normal range, is refused here (the setting's name in the message), "0" in its
 * place so that the rest of the file is still checked.
 */
static int number(struct scan *s, unsigned file, unsigned line, const char *p, size_t n,
		  enum number kind)
{
	struct conf_text *t = s->t;
	const char *name = s->current[0] ? s->current : "?";
	const char *problem = NULL;
	char lit[64], *end;
	long long v = 0;

	errno = 0;
	if (kind == N_INT || kind == N_INT64) {
		v = strtoll(p, &end, 10);
		if (errno == ERANGE)
			problem = v > 0 ? "the number is past 9223372036854775807"
					: "the number is below -9223372036854775808";
	} else if (kind == N_HEX || kind == N_HEX64) {
		size_t zeros = strspn(p + 2, "0"),
		       xd = strspn(p + 2 + zeros, "0123456789abcdefABCDEF");
		unsigned long long u = xd <= 16 ? strtoull(p, &end, 16) : ULLONG_MAX;

		if (u > LLONG_MAX)
			problem = "the number is past 9223372036854775807 (0x7fffffffffffffff)";
		v = (long long)u;
	} else if (kind == N_FLOAT) {
		double d = strtod(p, &end);

		if (errno == ERANGE || !isfinite(d) || (d != 0 && fabs(d) < DBL_MIN))
			problem = "out of range: a number is 0 or between 2.2e-308 and 1.8e308 "
				  "in size";
	}
	if (problem) {
		if (kind == N_FLOAT)
			fail(t, file, line, "%s: %.*s is %s", name, (int)n, p, problem);
		else
			fail(t, file, line, "%s: %s", name, problem);
		if (add_string(&t->refused, &t->n_refused, name) < 0)
			return -ENOMEM;
		return out(t, "0", 1);
	}
	if ((kind == N_INT || kind == N_HEX) && (v > INT32_MAX || v < INT32_MIN)) {
		snprintf(lit, sizeof(lit), "%.*sL", (int)n, p);
		return out(t, lit, strlen(lit));
	}
	return out(t, p, n);
}

/* The length of "[ \t]*@include[ \t]+\"" at P, 0 when that is not there. */
static size_t include_open(const char *p)
{
	size_t i = strspn(p, " \t"), b;

	if (strncmp(p + i, "@include", 8) != 0)
		return 0;
	i += 8;
	b = strspn(p + i, " \t");
	return b && p[i + b] == '"' ? i + b + 1 : 0;
}

static int scan_file(struct scan *s, unsigned file, const char *src, size_t len, unsigned depth);

/*
 * The @include at SRC (a line's start): its name, as libconfig's INCLUDE state decodes
 * it (\\ and \" only), then the file's text in its place. *END: past the closing quote.
 */
static int include(struct scan *s, unsigned file, unsigned line, const char *src, size_t *end,
		   unsigned depth)
{
	struct conf_text *t = s->t;
	char name[PATH_MAX], why[256], *text;
	size_t i = include_open(src), n = 0, len;
	int r, idx;

	for (;; i++) {
		if (src[i] == 0 || src[i] == '\n') {
			*end = i;
			fail(t, file, line, "@include: no closing '\"' on the line");
			return 0;
		}
		if (src[i] == '"')
			break;
		if (src[i] == '\\' && src[i + 1] != '\\' && src[i + 1] != '"') {
			*end = i + strcspn(src + i, "\n");
			fail(t, file, line,
			     "@include: '\\%c' in the name: only \\\\ and \\\" are escapes",
			     src[i + 1]);
			return 0;
		}
		i += src[i] == '\\';
		if (n + 1 < sizeof(name))
			name[n] = src[i];
		n++;
	}
	*end = i + 1;
	if (n >= sizeof(name)) {
		fail(t, file, line, "@include: the name is longer than %d bytes", PATH_MAX - 1);
		return 0;
	}
	name[n] = 0;
	if (!t->includes) {
		fail(t, file, line, "@include is not allowed here");
		return 0;
	}
	if (depth >= INCLUDE_DEPTH_MAX) {
		fail(t, file, line, "@include \"%s\": more than %d files deep", name,
		     INCLUDE_DEPTH_MAX);
		return 0;
	}
	if (t->n_files >= FILES_MAX) {
		stop(t, file, line,
		     "@include \"%s\": more than %d files to read, %s with all its @include "
		     "files: reading stops here",
		     name, FILES_MAX, t->files[0]);
		return -E2BIG;
	}
	text = conf_file_read(name, CONF_FILE_MAX, &len, why, sizeof(why));
	if (!text) {
		if (errno == ENOMEM)
			return -ENOMEM;
		fail(t, file, line, "@include \"%s\": %s", name, why);
		return 0;
	}
	idx = add_file(t, name);
	r = idx < 0 ? idx : scan_file(s, (unsigned)idx, text, len, depth + 1);
	free(text);
	if (r < 0)
		return r;
	return span(t, file, line);
}

/* The line of TEXT's first NUL byte, 0 when it has none. */
static unsigned nul_line(const char *text, size_t len)
{
	const char *nul = memchr(text, 0, len);
	unsigned nr = 1;

	if (!nul)
		return 0;
	for (const char *p = text; (p = memchr(p, '\n', (size_t)(nul - p))); p++)
		nr++;
	return nr;
}

static int scan_file(struct scan *s, unsigned file, const char *src, size_t len, unsigned depth)
{
	struct conf_text *t = s->t;
	size_t i = 0, copied = 0, n;
	unsigned line = 1;
	enum number kind;
	int r = 0;

	/* Past a NUL byte libconfig would read no more of the file. */
	if (nul_line(src, len)) {
		fail(t, file, nul_line(src, len), "a NUL byte: not a text file");
		return 0;
	}
	if (strncmp(src, BOM, 3) == 0) {
		fail(t, file, 1,
		     "the file starts with a UTF-8 byte order mark (EF BB BF): "
		     "save it without one");
		i = copied = 3;
	}
	r = span(t, file, 1);
	s->last = 0;
	while (r == 0 && i < len) {
		const char *p = src + i;

		if (s->state == S_COMMENT) {
			s->state = p[0] == '*' && p[1] == '/' ? S_INITIAL : S_COMMENT;
			line += p[0] == '\n';
			i += s->state == S_INITIAL ? 2 : 1;
		} else if (s->state == S_STRING) {
			if (p[0] == '\\' && (p[1] == '\\' || p[1] == '"'))
				i++;
			else if (p[0] == '"')
				s->state = S_INITIAL;
			line += p[0] == '\n';
			i++;
		} else if ((i == 0 || p[-1] == '\n') && include_open(p)) {
			if ((r = out(t, src + copied, i - copied)) < 0)
				break;
			r = include(s, file, line, p, &n, depth);
			i = copied = i + n;
		} else if (p[0] == '/' && p[1] == '*') {
			s->state = S_COMMENT;
			i += 2;
		} else if (p[0] == '#' || (p[0] == '/' && p[1] == '/')) {
			i += strcspn(p, "\n");
		} else if (p[0] == '"') {
			s->state = S_STRING;
			s->last = '"';
			i++;
		} else if (name_start(p[0])) {
			for (n = 1; name_char(p[n]); n++)
				;
			snprintf(s->pending, sizeof(s->pending), "%.*s", (int)n, p);
			s->last = 'n';
			i += n;
		} else if ((n = number_token(p, &kind))) {
			if ((r = out(t, src + copied, i - copied)) < 0)
				break;
			r = number(s, file, line, p, n, kind);
			i = copied = i + n;
			s->last = '0';
		} else {
			if ((p[0] == '=' || p[0] == ':') && s->last == 'n') {
				if ((r = out(t, src + copied, i - copied)) < 0)
					break;
				copied = i;
				r = setting_named(s);
				s->last = '=';
			} else if (p[0] == '{') {
				group_open(s);
				s->last = '{';
			} else if (p[0] == '}') {
				group_close(s);
				s->last = '}';
			} else if (!isspace((unsigned char)p[0])) {
				s->last = p[0];
			}
			line += p[0] == '\n';
			i++;
		}
	}
	if (r == 0)
		r = out(t, src + copied, len - copied);
	if (r == 0 && depth > 0 && s->state != S_INITIAL) {
		/* libconfig would read on into the including file: surely a mistake. */
		fail(t, file, line, "the file ends inside a %s",
		     s->state == S_STRING ? "string" : "/* comment */");
		s->state = S_INITIAL;
	}
	/* A last line without its newline: a # comment there is libconfig's syntax error. */
	if (r == 0 && len && src[len - 1] != '\n' && s->state != S_STRING)
		r = out(t, "\n", 1);
	/* Said once, where it happened: the files that include this one stop in silence. */
	if (r == -ENOMEM && !t->cut_short)
		stop(t, file, line, "%s", strerror(ENOMEM));
	return r < 0 ? r : 0;
}

int conf_text_read(struct conf_text *t, const char *name, const char *text, size_t len,
		   bool includes)
{
	struct scan s = {.t = t};
	int idx;

	t->includes = includes;
	t->line = 1;
	idx = add_file(t, name);
	if (idx < 0 || out(t, "", 0) < 0) {
		conf_diag_line(t->diag, "%s: %s", name, strerror(ENOMEM));
		t->errors++;
		return -ENOMEM;
	}
	scan_file(&s, (unsigned)idx, text, len, 0);
	if (t->unsaid)
		conf_diag_line(t->diag, "%s: ... and %u more such problems", name, t->unsaid);
	return t->errors ? -EINVAL : 0;
}

const char *conf_text_where(const struct conf_text *t, unsigned line, unsigned *file_line)
{
	const struct conf_span *sp = NULL;

	for (size_t i = 0; i < t->n_spans && t->spans[i].line <= line; i++)
		sp = &t->spans[i];
	if (!sp) {
		*file_line = line;
		return t->n_files ? t->files[0] : "?";
	}
	*file_line = sp->file_line + (line - sp->line);
	return t->files[sp->file];
}

const char *conf_text_duplicate(const struct conf_text *t, unsigned line, unsigned *first)
{
	for (size_t i = 0; i < t->n_names; i++) {
		if (t->names[i].line != line)
			continue;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(t->names[j].name, t->names[i].name) == 0) {
				*first = t->names[j].line;
				return t->names[i].name;
			}
		}
	}
	return NULL;
}

bool conf_text_refused(const struct conf_text *t, const char *name)
{
	for (size_t i = 0; i < t->n_refused; i++)
		if (strcmp(t->refused[i], name) == 0)
			return true;
	return false;
}

void conf_text_free(struct conf_text *t)
{
	for (size_t i = 0; i < t->n_files; i++)
		free(t->files[i]);
	for (size_t i = 0; i < t->n_names; i++)
		free(t->names[i].name);
	for (size_t i = 0; i < t->n_refused; i++)
		free(t->refused[i]);
	free(t->files);
	free(t->names);
	free(t->refused);
	free(t->spans);
	free(t->text);
	*t = (struct conf_text){.diag = t->diag};
}
