/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration file and the saved-settings file, parsed with libconfig from the text
 * source.c reads. Every problem is reported as "FILE:LINE: setting: problem", all of them,
 * not just the first; the caller decides whether to print, log or keep an older
 * configuration.
 */
#include <arpa/inet.h>
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

struct loader {
	struct conf *conf;
	struct conf_diag *diag;
	unsigned errors;
	bool saved;		      /* the saved-settings file: trackers.* only */
	struct conf_entries *collect; /* saved settings found, as text */
	const struct conf_text *src;  /* what libconfig parses, its lines mapped to files */
};

__attribute__((format(printf, 2, 3))) static void diag_add(struct loader *l, const char *fmt, ...)
{
	va_list ap;

	l->errors++;
	va_start(ap, fmt);
	conf_diag_vline(l->diag, fmt, ap);
	va_end(ap);
}

/* An integer setting's text; past 32 bits it is a 64-bit one (source.c adds the L). */
static char *int_text(config_setting_t *s, bool negative_ok, char *why, size_t whylen)
{
	long long v = config_setting_get_int64(s);
	char *ret;

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

/* The setting's value spelled as conf_set_value() takes it, or NULL with the problem in why. */
static char *setting_text(config_setting_t *s, enum conf_kind kind, char *why, size_t whylen)
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
			return int_text(s, true, why, whylen);
		break;
	case KIND_BOOL:
		if (t == CONFIG_TYPE_BOOL)
			text = strdup(config_setting_get_bool(s) ? "true" : "false");
		break;
	case KIND_INT:
	case KIND_NUMBER:
		if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64) {
			return int_text(s, false, why, whylen);
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

static void walk(struct loader *l, config_setting_t *group, const char *prefix)
{
	for (int i = 0; i < config_setting_length(group); i++) {
		config_setting_t *s = config_setting_get_elem(group, (unsigned)i);
		const struct conf_key *k;
		char name[256], why[256];
		const char *sfile;
		unsigned line;

		sfile = conf_text_where(l->src, config_setting_source_line(s), &line);
		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "",
			 config_setting_name(s) ?: "?");
		if (conf_text_refused(l->src, name))
			continue; /* its number is said to be out of range */
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
				walk(l, s, name);
			continue;
		}
		if (!k) {
			diag_add(l, "%s:%u: %s: unknown setting", sfile, line, name);
			continue;
		}
		char *text = setting_text(s, conf_kind_of(k->type), why, sizeof(why));

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

/* A broker on this host's loopback: nothing it is sent crosses a network. */
static bool loopback(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (strcmp(host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/*
 * The fleet's password to a mqtt:// broker crosses the network in clear text: said, as a
 * warning (a trusted network, an IPsec or WireGuard tunnel may be why), where it is set.
 */
static void check_fleet_password(struct loader *l)
{
	const struct conf_fleet *f = &l->conf->fleet;
	const struct conf_key *k = conf_find_key("fleet.password_file");
	const char *origin = k ? l->conf->origins[k - conf_keys] : NULL;
	char host[256];
	bool tls;

	if (!origin || !f->enabled || !f->password_file[0] ||
	    conf_broker_parse(f->broker, host, sizeof(host), NULL, &tls) < 0 || tls ||
	    loopback(host))
		return;
	conf_diag_line(l->diag,
		       "%s: fleet.password_file: warning: the password in %s goes to %s in clear "
		       "text: a broker with TLS (mqtts://) keeps it from the network",
		       origin, f->password_file, f->broker);
}

static void parse_error(struct loader *l, config_t *cfg)
{
	unsigned line, first;
	const char *file = conf_text_where(l->src, (unsigned)config_error_line(cfg), &line);
	const char *what = config_error_text(cfg), *name, *first_file;

	name = conf_text_duplicate(l->src, (unsigned)config_error_line(cfg), &first);
	if (name && strcmp(what, "duplicate setting name") == 0) {
		first_file = conf_text_where(l->src, first, &first);
		diag_add(l, "%s:%u: %s: set a second time (first at %s:%u)", file, line, name,
			 first_file, first);
	} else {
		diag_add(l, "%s:%u: %s", file, line, what);
	}
}

/*
 * TEXT, LEN bytes, of NAME: the whole file or string. INCLUDES: its @include lines are
 * followed, else refused.
 */
static void read_text(struct loader *l, const char *name, const char *text, size_t len,
		      bool includes)
{
	struct conf_text src = {.diag = l->diag};
	config_t cfg;

	conf_text_read(&src, name, text, len, includes);
	l->errors += src.errors;
	/* The other problems too, unless the text is cut short. */
	if (src.text && !src.cut_short) {
		config_init(&cfg);
		/* No path under /dev/null opens: libconfig itself reads no file, whatever it
		 * takes for an @include that the scan did not. */
		config_set_include_dir(&cfg, "/dev/null");
		l->src = &src;
		if (config_read_string(&cfg, src.text) != CONFIG_TRUE) {
			parse_error(l, &cfg);
		} else {
			walk(l, config_root_setting(&cfg), "");
			if (!l->saved) {
				check_events(l);
				check_fleet_password(l);
			}
		}
		l->src = NULL;
		config_destroy(&cfg);
	}
	conf_text_free(&src);
}

int conf_parse_string(struct conf *c, const char *text, const char *name, bool saved,
		      struct conf_diag *diag)
{
	struct loader l = {.conf = c, .diag = diag, .saved = saved};

	read_text(&l, name, text, strlen(text), false);
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

int conf_read_saved(const char *path, struct conf_entries *ret, struct conf_diag *diag)
{
	struct loader l = {.diag = diag, .saved = true, .collect = ret};
	char why[256], *text;
	size_t len;
	int r;

	ret->v = NULL;
	ret->n = 0;
	text = conf_file_read(path, SAVED_FILE_MAX, &len, why, sizeof(why));
	if (!text) {
		if (errno == ENOENT)
			return 0;
		diag_add(&l, "%s: %s", path, why);
		return -EINVAL;
	}
	/* Checked on defaults: every setting on its own, as conf_load applies them. */
	r = conf_new_defaults(&l.conf);
	if (r < 0) {
		free(text);
		return r;
	}
	read_text(&l, path, text, len, false);
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
	char why[256], *text = NULL;
	size_t len;
	int r;

	r = conf_new_defaults(&l.conf);
	if (r < 0)
		return r;

	if (src->path)
		text = conf_file_read(src->path, CONF_FILE_MAX, &len, why, sizeof(why));
	if (src->path && !text) {
		if (errno != ENOENT || src->must_exist)
			diag_add(&l, "%s: %s", src->path, why);
	} else if (src->path) {
		read_text(&l, src->path, text, len, true);
		free(text);
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
