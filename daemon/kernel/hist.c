// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tracker's histograms as the module writes them (hist.h). The parse is strict because a
 * wrong number here becomes a wrong percentile a user trusts: every line must be exactly
 * what the ABI says, buckets increasing, keys grouped, or the read fails naming the line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latency_tracker.h>

#include "kernel.h"

_Static_assert(PROTO_HIST_KEYS_MAX == LATENCY_TRACKER_HIST_KEYS + 1,
	       "a histogram holds the module's keys and \"other\"");

struct cursor {
	const char *p;	  /* the next line */
	const char *file; /* for WHY */
	unsigned line;
	char *why;
	size_t whylen;
};

__attribute__((format(printf, 2, 3))) static int bad(struct cursor *c, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(c->why, c->whylen, "%s line %u: %s", c->file, c->line, what);
	return -EBADMSG;
}

/* The next line into BUF (without its newline): 0, or 1 at the end of the text. */
static int next_line(struct cursor *c, char *buf, size_t size)
{
	size_t n;

	if (!*c->p)
		return 1;
	n = strcspn(c->p, "\n");
	c->line++;
	if (n >= size)
		return bad(c, "line too long");
	memcpy(buf, c->p, n);
	buf[n] = 0;
	c->p += n + (c->p[n] == '\n');
	return 0;
}

/* A decimal u64 word: digits only, no sign, no overflow. Advances *S past it and one space. */
static int word_u64(const char **s, uint64_t *ret)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p != ' ' && *p != 0)
		return -EINVAL;
	*s = *p ? p + 1 : p;
	*ret = v;
	return 0;
}

static int header(struct cursor *c, struct proto_hist *h)
{
	char line[128];
	const char *p = line;
	int r = next_line(c, line, sizeof(line));

	if (r)
		return r < 0 ? r
			     : (c->line = 1, bad(c, "empty file: expected 'since_ns N now_ns N'"));
	if (strncmp(p, "since_ns ", 9) || (p += 9, word_u64(&p, &h->since_ns)) < 0 ||
	    strncmp(p, "now_ns ", 7) || (p += 7, word_u64(&p, &h->now_ns)) < 0 || *p)
		return bad(c, "expected 'since_ns N now_ns N', not '%.64s'", line);
	if (h->now_ns < h->since_ns)
		return bad(c, "now_ns %llu is before since_ns %llu", (unsigned long long)h->now_ns,
			   (unsigned long long)h->since_ns);
	return 0;
}

/* "<lower bound ns> <count>" at P into COUNTS, after bucket *LAST (-1: none yet). */
static int bucket(struct cursor *c, const char *p, uint64_t *counts, int *last)
{
	uint64_t lower, count;
	int i;

	if (word_u64(&p, &lower) < 0 || word_u64(&p, &count) < 0 || *p)
		return bad(c, "expected '<lower bound ns> <count>'");
	i = proto_hist_bucket(lower);
	if (i < 0)
		return bad(c, "%llu is no bucket's lower bound (0 or a power of two from 2)",
			   (unsigned long long)lower);
	if (i <= *last)
		return bad(c, "bucket %llu after bucket %llu: buckets must increase",
			   (unsigned long long)lower,
			   (unsigned long long)proto_hist_lower_ns((unsigned)*last));
	counts[i] = count;
	*last = i;
	return 0;
}

/* A key as hist/per says: a CPU or system call number, MAJ:MIN, or "other". */
static bool key_valid(const char *per, const char *key)
{
	unsigned maj, min;
	char end;

	if (strcmp(key, PROTO_HIST_KEY_OTHER) == 0)
		return true;
	if (strcmp(per, KHIST_PER_DISK) == 0)
		return sscanf(key, "%u:%u%c", &maj, &min, &end) == 2 && key[0] >= '0' &&
		       key[0] <= '9';
	for (const char *p = key; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return key[0] != 0;
}

static int keyed_line(struct cursor *c, char *line, struct proto_hist *h, int *last)
{
	char *sp = strchr(line, ' ');
	struct proto_hist_key *k = h->nkeys ? &h->keys[h->nkeys - 1] : NULL;

	if (!sp)
		return bad(c, "expected '<key> <lower bound ns> <count>'");
	*sp = 0;
	if (strlen(line) >= PROTO_HIST_KEY_LEN || !key_valid(h->per, line))
		return bad(c, "'%.32s' is not a key of per %s", line, h->per);
	if (!k || strcmp(k->key, line) != 0) {
		for (size_t i = 0; i < h->nkeys; i++)
			if (strcmp(h->keys[i].key, line) == 0)
				return bad(c, "key %s again after another: keys must be grouped",
					   line);
		if (h->nkeys == PROTO_HIST_KEYS_MAX)
			return bad(c, "more than %d keys and 'other'", LATENCY_TRACKER_HIST_KEYS);
		k = &h->keys[h->nkeys++];
		memset(k, 0, sizeof(*k));
		snprintf(k->key, sizeof(k->key), "%.23s", line); /* its length checked */
		*last = -1;
	}
	return bucket(c, sp + 1, k->counts, last);
}

int khist_parse(const char *text, const char *file, bool by_key, struct proto_hist *h, char *why,
		size_t whylen)
{
	struct cursor c = {text, file, 0, why, whylen};
	char line[128];
	int r, last = -1;

	memset(h, 0, sizeof(*h));
	r = header(&c, h);
	if (r < 0)
		return r;
	if (by_key) {
		r = next_line(&c, line, sizeof(line));
		if (r)
			return r < 0 ? r : bad(&c, "missing line 2 'per WORD'");
		if (strncmp(line, "per ", 4) || !khist_per_valid(line + 4))
			return bad(&c, "expected 'per none|cpu|disk|syscall', not '%.64s'", line);
		snprintf(h->per, sizeof(h->per), "%.15s", line + 4); /* a word of 7 at most */
	}
	while ((r = next_line(&c, line, sizeof(line))) == 0) {
		if (by_key && strcmp(h->per, KHIST_PER_NONE) == 0)
			return bad(&c, "a bucket line while per is none");
		r = by_key ? keyed_line(&c, line, h, &last) : bucket(&c, line, h->counts, &last);
		if (r < 0)
			return r;
	}
	return r < 0 ? r : 0;
}

bool khist_per_valid(const char *word)
{
	static const char *const words[] = {KHIST_PER_NONE, KHIST_PER_CPU, KHIST_PER_DISK,
					    KHIST_PER_SYSCALL};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(word, words[i]) == 0)
			return true;
	return false;
}

/* The whole file: sysfs gives it in one read of up to a page, a fake tree maybe not. */
static int read_all(const char *path, char **ret)
{
	size_t len = 0, size = 4096;
	char *buf = malloc(size), *nb;
	ssize_t n;
	int fd, r = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	while (r == 0 && (n = read(fd, buf + len, size - len - 1)) != 0) {
		if (n < 0)
			r = -errno;
		else if ((len += (size_t)n) + 1 < size)
			continue;
		else if (size >= KHIST_FILE_MAX)
			r = -EFBIG;
		else if (!(nb = realloc(buf, size * 2)))
			r = -ENOMEM;
		else
			buf = nb, size *= 2;
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[len] = 0;
	*ret = buf;
	return 0;
}

int khist_read(const char *root, const char *tracker, bool by_key, struct proto_hist *h, char *why,
	       size_t whylen)
{
	const char *file = by_key ? KHIST_BY_KEY : KHIST_DELAY;
	char path[PATH_MAX], shown[96];
	char *text = NULL;
	int r = ktracker_check(root, tracker);

	if (r == -EINVAL) {
		snprintf(why, whylen, "invalid tracker name '%s'", tracker);
		return r;
	}
	if (r < 0)
		goto no_tracker;
	if (snprintf(path, sizeof(path), "%s/%s/%s/%s", root, LATENCY_TRACKER_SYSFS_DIR, tracker,
		     file) >= (int)sizeof(path)) {
		snprintf(why, whylen, "cannot read %s of tracker %s: its path is too long", file,
			 tracker);
		return -ENAMETOOLONG;
	}
	r = read_all(path, &text);
	/* The tracker may have gone since the check (its module unloaded): say which it is. */
	if (r == -ENOENT && ktracker_check(root, tracker) == -ENOENT)
		goto no_tracker;
	if (r == -ENOENT) {
		snprintf(why, whylen,
			 "tracker %s has no histograms (hist/): its module is older than "
			 "latency_tracker ABI 1.4",
			 tracker);
		return r;
	}
	if (r < 0) {
		snprintf(why, whylen, "cannot read %s of tracker %s: %s", file, tracker,
			 strerror(-r));
		return r;
	}
	snprintf(shown, sizeof(shown), "%s/%s", tracker, file);
	r = khist_parse(text, shown, by_key, h, why, whylen);
	free(text);
	return r;

no_tracker:
	snprintf(why, whylen, "no tracker '%s' (see latencyctl trackers)", tracker);
	return -ENOENT;
}
