/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration: a libconfig file checked against one table. Each row names a setting, its
 * type, where it lives in struct conf and its default; defaults go through the same parser
 * as file values. A new setting is a new row (and a new type when none fits).
 *
 * Every problem is reported as "FILE:LINE: setting: problem", all of them, not just the
 * first; the caller decides whether to print, log or keep an older configuration.
 */
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <libconfig.h>

#include "latencyd.h"

enum conf_type {
	CONF_SOCKET_PATH, /* char *: absolute, fits in sun_path */
	CONF_GROUP,	  /* char * name (may be ""), gid_t at aux_offset */
	CONF_LOG_LEVEL,	  /* int: LOG_ERR .. LOG_DEBUG */
};

struct conf_key {
	const char *name; /* section.setting */
	enum conf_type type;
	size_t offset;
	size_t aux_offset;
	const char *def;
};

static const struct conf_key keys[] = {
	{"control.socket", CONF_SOCKET_PATH, offsetof(struct conf, control.socket), 0,
	 PROTO_SOCKET_PATH_DEFAULT},
	{"control.admin_group", CONF_GROUP, offsetof(struct conf, control.admin_group),
	 offsetof(struct conf, control.admin_gid), ""},
	{"control.read_group", CONF_GROUP, offsetof(struct conf, control.read_group),
	 offsetof(struct conf, control.read_gid), ""},
	{"log.level", CONF_LOG_LEVEL, offsetof(struct conf, log.level), 0, "info"},
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

struct loader {
	struct conf *conf;
	struct conf_diag *diag;
	unsigned errors;
};

__attribute__((format(printf, 2, 3))) static void diag_add(struct loader *l, const char *fmt, ...)
{
	va_list ap;
	char *line = NULL, **lines;

	l->errors++;
	if (!l->diag)
		return;
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		return;
	lines = realloc(l->diag->lines, (l->diag->n + 1) * sizeof(*lines));
	if (!lines) {
		free(line);
		return;
	}
	lines[l->diag->n++] = line;
	l->diag->lines = lines;
}

void conf_diag_clear(struct conf_diag *diag)
{
	if (!diag)
		return;
	for (size_t i = 0; i < diag->n; i++)
		free(diag->lines[i]);
	free(diag->lines);
	diag->lines = NULL;
	diag->n = 0;
}

static int set_string(char **field, const char *value)
{
	char *s = strdup(value);

	if (!s)
		return -ENOMEM;
	free(*field);
	*field = s;
	return 0;
}

static int lookup_group(const char *name, gid_t *ret)
{
	size_t size = 1024;

	for (;;) {
		struct group grp, *result = NULL;
		char *buf = malloc(size);
		int r;

		if (!buf)
			return -ENOMEM;
		r = getgrnam_r(name, &grp, buf, size, &result);
		if (r == ERANGE && size < (1u << 20)) {
			free(buf);
			size *= 2;
			continue;
		}
		if (r == 0 && result)
			*ret = result->gr_gid;
		free(buf);
		if (r != 0)
			return -r;
		return result ? 0 : -ENOENT;
	}
}

/* Parses value into the row's field; on failure writes the problem into why. */
static int set_value(struct conf *c, const struct conf_key *k, const char *value, char *why,
		     size_t whylen)
{
	char *base = (char *)c;
	gid_t gid = GID_INVALID;
	int r;

	switch (k->type) {
	case CONF_SOCKET_PATH:
		if (value[0] != '/' ||
		    strlen(value) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			snprintf(why, whylen, "must be an absolute path of at most %zu bytes",
				 sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
			return -EINVAL;
		}
		return set_string((char **)(base + k->offset), value);
	case CONF_GROUP:
		if (value[0]) {
			r = lookup_group(value, &gid);
			if (r < 0) {
				snprintf(why, whylen, "group '%s': %s", value,
					 r == -ENOENT ? "no such group" : strerror(-r));
				return r;
			}
		}
		*(gid_t *)(base + k->aux_offset) = gid;
		return set_string((char **)(base + k->offset), value);
	case CONF_LOG_LEVEL:
		r = log_level_from_string(value);
		if (r < 0) {
			snprintf(why, whylen, "'%s' is not one of error, warning, info, debug",
				 value);
			return r;
		}
		*(int *)(base + k->offset) = r;
		return 0;
	}
	snprintf(why, whylen, "internal error: unknown setting type");
	return -EINVAL;
}

static const struct conf_key *find_key(const char *name)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

/* A section is a proper prefix of some key, up to a dot. */
static bool is_section(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < N_KEYS; i++)
		if (strncmp(keys[i].name, name, len) == 0 && keys[i].name[len] == '.')
			return true;
	return false;
}

void conf_free(struct conf *c)
{
	if (!c)
		return;
	free(c->source);
	free(c->control.socket);
	free(c->control.admin_group);
	free(c->control.read_group);
	free(c);
}

int conf_new_defaults(struct conf **ret)
{
	struct conf *c;
	char why[256];
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->control.admin_gid = c->control.read_gid = GID_INVALID;
	for (size_t i = 0; i < N_KEYS; i++) {
		r = set_value(c, &keys[i], keys[i].def, why, sizeof(why));
		if (r < 0) {
			conf_free(c);
			return r;
		}
	}
	*ret = c;
	return 0;
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
		k = find_key(name);
		if (!k && is_section(name)) {
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
		/* Every type so far is spelled as a string in the file. */
		if (config_setting_type(s) != CONFIG_TYPE_STRING) {
			diag_add(l, "%s:%u: %s: expected a string", sfile, line, name);
			continue;
		}
		if (set_value(l->conf, k, config_setting_get_string(s), why, sizeof(why)) < 0)
			diag_add(l, "%s:%u: %s: %s", sfile, line, name, why);
	}
}

static void read_file(struct loader *l, const char *path)
{
	config_t cfg;

	config_init(&cfg);
	if (config_read_file(&cfg, path) != CONFIG_TRUE) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			diag_add(l, "%s: cannot read file", path);
		else
			diag_add(l, "%s:%d: %s", config_error_file(&cfg) ?: path,
				 config_error_line(&cfg), config_error_text(&cfg));
	} else {
		walk(l, config_root_setting(&cfg), "", path);
	}
	config_destroy(&cfg);
}

/* Applies one setting from outside a file (command-line overrides). */
int conf_set(struct conf *c, const char *key, const char *value, struct conf_diag *diag)
{
	struct loader l = {c, diag, 0};
	const struct conf_key *k = find_key(key);
	char why[256];
	int r;

	if (!k) {
		diag_add(&l, "%s: unknown setting", key);
		return -ENOENT;
	}
	r = set_value(c, k, value, why, sizeof(why));
	if (r < 0)
		diag_add(&l, "%s: %s", key, why);
	return r;
}

int conf_load(const struct conf_source *src, struct conf **ret, struct conf_diag *diag)
{
	struct loader l = {NULL, diag, 0};
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
		if (set_string(&l.conf->source, src->path) < 0)
			l.errors++;
	}

	if (src->socket && conf_set(l.conf, "control.socket", src->socket, diag) < 0)
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
