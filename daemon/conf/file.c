/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration file and the saved-settings file, read with libconfig. Every problem
 * is reported as "FILE:LINE: setting: problem", all of them, not just the first; the
 * caller decides whether to print, log or keep an older configuration.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <limits.h>
#include <unistd.h>

#include <libconfig.h>

#include <latency_tracker.h>

#include "conf_internal.h"

#define SAVED_FILE_MAX (1024 * 1024) /* a saved-settings file holds a few hundred bytes */
#define CONF_FILE_MAX  (16 * 1024 * 1024)

struct loader {
	struct conf *conf;
	struct conf_diag *diag;
	unsigned errors;
	bool saved;		      /* the saved-settings file: trackers.* only */
	struct conf_entries *collect; /* saved settings found, as text */
	const char *text;	      /* what is parsed, when it is no file's */
};

__attribute__((format(printf, 2, 3))) static void diag_add(struct loader *l, const char *fmt, ...)
{
	va_list ap;

	l->errors++;
	va_start(ap, fmt);
	conf_diag_vline(l->diag, fmt, ap);
	va_end(ap);
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '*';
}

/* The line setting S is on, from its file or else from TEXT; NULL when there is none. */
static char *source_line(const config_setting_t *s, const char *text)
{
	const char *file = config_setting_source_file(s);
	unsigned line = config_setting_source_line(s);
	char *buf = NULL;
	size_t size = 0;
	ssize_t n = -1;
	FILE *fp;

	if (!line)
		return NULL;
	if (!file) {
		for (unsigned i = 1; text && i < line; i++) {
			text = strchr(text, '\n');
			text = text ? text + 1 : NULL;
		}
		return text ? strndup(text, strcspn(text, "\n")) : NULL;
	}
	fp = fopen(file, "re");
	if (!fp)
		return NULL;
	for (unsigned i = 0; i < line && (n = getline(&buf, &size, fp)) >= 0; i++)
		;
	fclose(fp);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * libconfig 1.5 keeps an integer without the L suffix in 32 bits: "max_bytes =
 * 10737418240;" reads as -2147483648. The literal is read again from its line (TEXT's when
 * it comes from no file): the value it writes there, if libconfig's is that value cut to 32
 * bits; else libconfig's, V. The line may be of any length and hold other settings,
 * "burst" after "peer_burst".
 * *PAST: 1 when the literal is a number past 64 bits (libconfig read -1), -1 below (0).
 */
static long long literal_int64(const config_setting_t *s, const char *text, long long v, int *past)
{
	const char *name = config_setting_name(s);
	size_t len = name ? strlen(name) : 0;
	char *buf = name ? source_line(s, text) : NULL, *p, *end;
	long long big, found = v;

	for (p = buf; p && (p = strstr(p, name)); p += len) {
		const char *q = p + len + strspn(p + len, " \t");

		if ((p != buf && name_char(p[-1])) || (*q != '=' && *q != ':'))
			continue;
		errno = 0;
		big = strtoll(q + 1, &end, 0);
		if (errno == ERANGE && v == (big > 0 ? -1 : 0)) {
			*past = big > 0 ? 1 : -1;
			break;
		}
		if (!errno && end != q + 1 &&
		    (int32_t)(uint32_t)(unsigned long long)big == (int32_t)v) {
			found = big;
			break;
		}
	}
	free(buf);
	return found;
}

/* An integer setting's text, read again from its line past 32 bits (literal_int64). */
static char *int_text(config_setting_t *s, const char *text, bool negative_ok, char *why,
		      size_t whylen)
{
	long long v = config_setting_get_int64(s);
	char *ret;
	int past = 0;

	if (config_setting_type(s) == CONFIG_TYPE_INT)
		v = literal_int64(s, text, v, &past);
	if (past) {
		snprintf(why, whylen, "the number is %s %lld", past > 0 ? "past" : "below",
			 past > 0 ? LLONG_MAX : LLONG_MIN);
		return NULL;
	}
	if (v < 0 && !negative_ok) {
		snprintf(why, whylen, "%lld is negative", v);
		return NULL;
	}
	if (asprintf(&ret, "%lld", v) < 0) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return NULL;
	}
	return ret;
}

/*
 * The setting's value spelled as conf_set_value() takes it, or NULL with the problem in why.
 * SOURCE: the text parsed, when it is no file's.
 */
static char *setting_text(config_setting_t *s, enum conf_kind kind, const char *source, char *why,
			  size_t whylen)
{
	static const char *const expected[] = {
		[KIND_STRING] = "expected a string",
		[KIND_BOOL] = "expected true or false",
		[KIND_INT] = "expected an integer",
		[KIND_NUMBER] = "expected a number",
		[KIND_LIST] = "expected a list of strings [\"a\", \"b\"]",
		[KIND_DURATION] = "expected a duration as a string with a unit, as in \"10ms\"",
	};
	int t = config_setting_type(s);
	char *text = NULL;

	switch (kind) {
	case KIND_STRING:
		if (t == CONFIG_TYPE_STRING)
			text = strdup(config_setting_get_string(s));
		break;
	case KIND_DURATION:
		/* A bare number reaches the parser, which asks for a unit (0 means off). */
		if (t == CONFIG_TYPE_STRING)
			text = strdup(config_setting_get_string(s));
		else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
			return int_text(s, source, true, why, whylen);
		break;
	case KIND_BOOL:
		if (t == CONFIG_TYPE_BOOL)
			text = strdup(config_setting_get_bool(s) ? "true" : "false");
		break;
	case KIND_INT:
	case KIND_NUMBER:
		if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
			return int_text(s, source, false, why, whylen);
		} else if (kind == KIND_NUMBER && t == CONFIG_TYPE_FLOAT) {
			if (asprintf(&text, "%.17g", config_setting_get_float(s)) < 0)
				text = NULL;
		}
		break;
	case KIND_LIST:
		if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
			break;
		text = strdup("");
		for (int i = 0; text && i < config_setting_length(s); i++) {
			config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
			const char *v = config_setting_get_string(e);
			char *joined;

			/* The comma-joined text would lose an empty element without a word. */
			if (!v || !v[0] || strchr(v, ',')) {
				snprintf(why, whylen, "element %d: %s", i + 1,
					 !v	 ? "expected a string"
					 : !v[0] ? "must not be empty"
						 : "must not contain ','");
				free(text);
				return NULL;
			}
			if (asprintf(&joined, "%s%s%s", text, i ? "," : "", v) < 0)
				joined = NULL;
			free(text);
			text = joined;
		}
		break;
	}
	if (!text)
		snprintf(why, whylen, "%s", expected[kind]);
	return text;
}

/* Where a setting was found: kept for "latencyctl config", and as a saved entry. */
static void found(struct loader *l, const struct conf_key *k, const char *text, const char *file,
		  unsigned line)
{
	struct conf_entry *v;
	char origin[PATH_MAX + 16];

	snprintf(origin, sizeof(origin), "%s:%u", file, line);
	if (conf_set_origin(l->conf, k, origin) < 0)
		l->errors++;
	if (!l->collect)
		return;
	v = realloc(l->collect->v, (l->collect->n + 1) * sizeof(*v));
	if (!v) {
		l->errors++;
		return;
	}
	l->collect->v = v;
	v += l->collect->n;
	v->key = strdup(k->name);
	v->value = strdup(text);
	v->line = line;
	l->collect->n++;
	if (!v->key || !v->value)
		l->errors++;
}

static bool in_trackers(const char *name)
{
	return strcmp(name, "trackers") == 0 || strncmp(name, "trackers.", 9) == 0;
}

static void walk(struct loader *l, config_setting_t *group, const char *prefix, const char *file)
{
	for (int i = 0; i < config_setting_length(group); i++) {
		config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const char *sfile = config_setting_source_file(s) ?: file;
		unsigned line = config_setting_source_line(s);
		const struct conf_key *k;
		char name[256], why[256];

		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "",
			 config_setting_name(s) ?: "?");
		if (l->saved && !in_trackers(name)) {
			diag_add(l, "%s:%u: %s: only trackers settings are saved here", sfile, line,
				 name);
			continue;
		}
		k = conf_find_key(name);
		if (!k && conf_is_section(name)) {
			if (config_setting_type(s) != CONFIG_TYPE_GROUP)
				diag_add(l, "%s:%u: %s: expected a group { ... }", sfile, line,
					 name);
			else
				walk(l, s, name, file);
			continue;
		}
		if (!k) {
			diag_add(l, "%s:%u: %s: unknown setting", sfile, line, name);
			continue;
		}
		char *text = setting_text(s, conf_kind_of(k->type), l->text, why, sizeof(why));

		if (!text) {
			diag_add(l, "%s:%u: %s: %s", sfile, line, name, why);
			continue;
		}
		if (conf_set_value(l->conf, k, text, why, sizeof(why)) < 0)
			diag_add(l, "%s:%u: %s: %s", sfile, line, name, why);
		else
			found(l, k, text, sfile, line);
		free(text);
	}
}

/*
 * session.events in the kernel domain, once the whole file is read (domain may come
 * after events): a near miss of a probe's event is an error, a name no probe latencyd's
 * sessiond loads offers is said but allowed (the site may load its probe). The user
 * space domain's events are the applications' own: nothing to check them against.
 */
static void check_events(struct loader *l)
{
	const struct conf_key *k = conf_find_key("session.events");
	const char *origin = k ? l->conf->origins[k - conf_keys] : NULL;
	char why[512];
	int r;

	if (!origin || l->conf->session.domain != CONF_DOMAIN_KERNEL)
		return;
	for (char **e = l->conf->session.events; e && *e; e++) {
		r = conf_event_check(*e, why, sizeof(why));
		if (r < 0)
			diag_add(l, "%s: session.events: %s", origin, why);
		else if (r > 0)
			conf_diag_line(l->diag, "%s: session.events: warning: %s", origin, why);
	}
}

static void parse_config(struct loader *l, config_t *cfg, int ok, const char *name)
{
	if (ok != CONFIG_TRUE) {
		if (config_error_type(cfg) == CONFIG_ERR_FILE_IO)
			diag_add(l, "%s: cannot read file", name);
		else
			diag_add(l, "%s:%d: %s", config_error_file(cfg) ?: name,
				 config_error_line(cfg), config_error_text(cfg));
	} else {
		walk(l, config_root_setting(cfg), "", name);
		if (!l->saved)
			check_events(l);
	}
}

#define INCLUDE_DEPTH_MAX 10 /* libconfig's own limit */

/*
 * libconfig's scanner exit()s the whole process when an @include names a directory (its
 * "input in flex scanner failed"), and would block on a FIFO: a reload must never do
 * that to latencyd. Every @include line, and theirs in turn, must name a regular file; a
 * missing one is left to libconfig, which reports it.
 */
static char *conf_slurp(const char *path, size_t max, size_t *len);

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

static void check_includes(struct loader *l, const char *path, unsigned depth)
{
	char *text, *line, *next, target[PATH_MAX];
	unsigned nr = 0;
	struct stat st;
	size_t len;

	if (depth > INCLUDE_DEPTH_MAX)
		return;
	text = conf_slurp(path, CONF_FILE_MAX, &len);
	if (!text) {
		/* What cannot be checked is not read: libconfig would follow its @include. */
		if (errno == EFBIG)
			diag_add(l, "%s: larger than %d MiB", path, CONF_FILE_MAX >> 20);
		return; /* else libconfig says why */
	}
	/* Past a NUL byte the lines below are not seen, and libconfig reads on in a comment. */
	nr = nul_line(text, len);
	if (nr) {
		diag_add(l, "%s:%u: a NUL byte: not a text file", path, nr);
		free(text);
		return;
	}
	for (line = text; line && *line; line = next) {
		const char *p = line, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		nr++;
		p += strspn(p, " \t");
		if (strncmp(p, "@include", 8) != 0)
			continue;
		p += 8 + strspn(p + 8, " \t");
		if (*p != '"' || !(end = strchr(p + 1, '"')))
			continue;
		snprintf(target, sizeof(target), "%.*s", (int)(end - p - 1), p + 1);
		if (stat(target, &st) < 0)
			continue;
		if (!S_ISREG(st.st_mode))
			diag_add(l, "%s:%u: @include \"%s\": not a regular file", path, nr, target);
		else
			check_includes(l, target, depth + 1);
	}
	free(text);
}

static void read_file(struct loader *l, const char *path)
{
	config_t cfg;
	unsigned errors = l->errors;

	check_includes(l, path, 0);
	if (l->errors > errors)
		return;
	config_init(&cfg);
	parse_config(l, &cfg, config_read_file(&cfg, path), path);
	config_destroy(&cfg);
}

/* Text from elsewhere than the file latencyd was told to read: no @include may escape it. */
static void read_string(struct loader *l, const char *text, const char *name)
{
	config_t cfg;

	if (strcasestr(text, "@include")) {
		diag_add(l, "%s: @include is not allowed here", name);
		return;
	}
	l->text = text;
	config_init(&cfg);
	parse_config(l, &cfg, config_read_string(&cfg, text), name);
	config_destroy(&cfg);
	l->text = NULL;
}

int conf_parse_string(struct conf *c, const char *text, const char *name, bool saved,
		      struct conf_diag *diag)
{
	struct loader l = {.conf = c, .diag = diag, .saved = saved};

	read_string(&l, text, name);
	return l.errors ? -EINVAL : 0;
}

void conf_entries_clear(struct conf_entries *e)
{
	for (size_t i = 0; e && i < e->n; i++) {
		free(e->v[i].key);
		free(e->v[i].value);
	}
	if (e) {
		free(e->v);
		e->v = NULL;
		e->n = 0;
	}
}

/* The whole file in memory (it is small), *LEN its bytes: NULL and errno set on failure. */
static char *conf_slurp(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = malloc(max + 1);
	n = buf ? fread(buf, 1, max + 1, f) : 0;
	if (buf && (ferror(f) || n > max)) {
		free(buf);
		buf = NULL;
		errno = n > max ? EFBIG : EIO;
	} else if (buf) {
		buf[n] = 0;
		*len = n;
	}
	fclose(f);
	return buf;
}

int conf_read_saved(const char *path, struct conf_entries *ret, struct conf_diag *diag)
{
	struct loader l = {.diag = diag, .saved = true, .collect = ret};
	unsigned nul;
	size_t len;
	char *text;
	int r;

	ret->v = NULL;
	ret->n = 0;
	text = conf_slurp(path, SAVED_FILE_MAX, &len);
	if (!text) {
		if (errno == ENOENT)
			return 0;
		diag_add(&l, "%s: %s", path, strerror(errno));
		return -EINVAL;
	}
	/* Checked on defaults: every setting on its own, as conf_load applies them. */
	r = conf_new_defaults(&l.conf);
	if (r < 0) {
		free(text);
		return r;
	}
	nul = nul_line(text, len);
	if (nul)
		diag_add(&l, "%s:%u: a NUL byte: not a text file", path, nul);
	else
		read_string(&l, text, path);
	free(text);
	conf_free(l.conf);
	if (l.errors) {
		conf_entries_clear(ret);
		return -EINVAL;
	}
	return 0;
}

/*
 * The saved-settings file over the configuration: all or nothing. A file with a problem
 * is reported (each problem, then what latencyd does about it) and ignored, so that a
 * damaged file never keeps latencyd from starting with its real configuration.
 */
static int apply_saved(struct loader *l)
{
	const char *path = l->conf->control.save_file;
	struct conf_diag problems = {0};
	struct conf_entries e = {0};
	char origin[PATH_MAX + 16];
	int r;

	if (!path[0])
		return 0;
	r = conf_read_saved(path, &e, &problems);
	if (r < 0) {
		for (size_t i = 0; i < problems.n; i++)
			conf_diag_line(l->diag, "%s", problems.lines[i]);
		conf_diag_line(
			l->diag,
			"%s: ignored: none of its saved settings apply, latencyd runs with %s "
			"alone (fix or remove the file, then reload)",
			path, l->conf->source ?: "the built-in defaults");
		r = problems.n ? conf_set_string(&l->conf->saved_problem, problems.lines[0])
			       : conf_set_string(&l->conf->saved_problem, path);
		conf_diag_clear(&problems);
		return r;
	}
	if (access(path, F_OK) == 0 && (r = conf_set_string(&l->conf->saved_source, path)) < 0)
		goto out;
	for (size_t i = 0; i < e.n; i++) {
		snprintf(origin, sizeof(origin), "%s:%u", path, e.v[i].line);
		r = conf_set_from(l->conf, e.v[i].key, e.v[i].value, origin, l->diag);
		if (r < 0)
			goto out;
	}
	r = 0;
out:
	conf_entries_clear(&e);
	return r;
}

int conf_load(const struct conf_source *src, struct conf **ret, struct conf_diag *diag)
{
	struct loader l = {.diag = diag};
	struct stat st;
	int r;

	r = conf_new_defaults(&l.conf);
	if (r < 0)
		return r;

	if (src->path && stat(src->path, &st) < 0) {
		if (errno != ENOENT || src->must_exist)
			diag_add(&l, "%s: %s", src->path, strerror(errno));
	} else if (src->path) {
		if (!S_ISREG(st.st_mode))
			diag_add(&l, "%s: not a regular file", src->path);
		else
			read_file(&l, src->path);
		if (conf_set_string(&l.conf->source, src->path) < 0)
			l.errors++;
	}
	/* Precedence: defaults, the file, the saved settings, the command line. */
	if (l.errors == 0 && apply_saved(&l) < 0)
		l.errors++;
	if (src->socket &&
	    conf_set_from(l.conf, "control.socket", src->socket, "--socket", diag) < 0)
		l.errors++;
	if (src->debug)
		l.conf->log.level = LOG_DEBUG;

	if (l.errors > 0) {
		conf_free(l.conf);
		return -EINVAL;
	}
	*ret = l.conf;
	return 0;
}

bool conf_needs_root(const struct conf *c)
{
	return c->session.enabled && (c->module.load || c->session.domain != CONF_DOMAIN_USERSPACE);
}
