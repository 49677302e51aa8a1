/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * latencyctl --save: changes that survive a restart. latencyd owns one libconfig file
 * (control.save_file, /var/lib/latencyd/saved.conf) holding trackers.* settings only; it is
 * read after the configuration file and overrides it (conf/file.c). Like systemctl set-property's
 * drop-ins, the administrator's own file is never rewritten.
 *
 * A save re-reads the file (an edit made since the start is kept), merges the change and
 * replaces the file atomically: a temporary file in the same directory, fsync, rename,
 * fsync of the directory. A crash leaves the old file or the new one, never half of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"

#define SAVED_HEADER                                                                               \
	"# Saved by latencyd for \"latencyctl --save\". These trackers settings override\n"        \
	"# the configuration file (see latencyd.conf(5)). latencyd rewrites this file on\n"        \
	"# every --save; after editing it by hand, run \"latencyctl reload\".\n"

int saved_check(struct manager *m, const struct saved_change *ch, size_t n, struct proto_error *err)
{
	const struct conf *c = m->conf;
	struct conf_diag diag = {0};
	struct conf *scratch;
	int r;

	if (!c->control.save_file[0])
		return proto_error_set(err, PROTO_ERR_REFUSED,
				       "saving is off (control.save_file is empty in %s)",
				       c->source ?: "the configuration");
	if (c->saved_problem)
		return proto_error_set(err, PROTO_ERR_REFUSED,
				       "%s was ignored at start (%s): fix or remove it, then "
				       "reload; nothing changed",
				       c->control.save_file, c->saved_problem);
	r = conf_new_defaults(&scratch);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = conf_set(scratch, ch[i].key, ch[i].value, &diag);
	conf_free(scratch);
	if (r < 0)
		proto_error_set(err, PROTO_ERR_BAD_ARGUMENT, "cannot be saved: %s",
				diag.n ? diag.lines[0] : strerror(-r));
	conf_diag_clear(&diag);
	return r < 0 ? proto_errcode_to_errno(PROTO_ERR_BAD_ARGUMENT) : 0;
}

static int merge(struct conf_entries *e, const struct saved_change *ch)
{
	struct conf_entry *v;

	for (size_t i = 0; i < e->n; i++) {
		if (strcmp(e->v[i].key, ch->key) != 0)
			continue;
		free(e->v[i].value);
		e->v[i].value = strdup(ch->value);
		return e->v[i].value ? 0 : -ENOMEM;
	}
	v = realloc(e->v, (e->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	e->v = v;
	v[e->n].key = strdup(ch->key);
	v[e->n].value = strdup(ch->value);
	v[e->n].line = 0;
	e->n++;
	return v[e->n - 1].key && v[e->n - 1].value ? 0 : -ENOMEM;
}

/* "trackers.NAME.SETTING": the length of "trackers.NAME", the setting after it. */
static size_t group_len(const char *key, const char **setting)
{
	const char *dot = strrchr(key, '.');

	*setting = dot ? dot + 1 : key;
	return dot ? (size_t)(dot - key) : 0;
}

/* The file's text, one group per tracker in first-seen order; sets each entry's line. */
static int render(struct conf_entries *e, FILE *f)
{
	bool *done = calloc(e->n ? e->n : 1, sizeof(*done));
	unsigned line = 4; /* the header's three lines, then "trackers: {" */
	const char *setting;
	char *literal;
	int r = 0;

	if (!done)
		return -ENOMEM;
	fputs(SAVED_HEADER "trackers: {\n", f);
	for (size_t i = 0; i < e->n && r >= 0; i++) {
		size_t glen = group_len(e->v[i].key, &setting);

		if (done[i])
			continue;
		fprintf(f, "\t%.*s: {\n", (int)(glen - strlen("trackers.")),
			e->v[i].key + strlen("trackers."));
		line++;
		for (size_t j = i; j < e->n && r >= 0; j++) {
			if (done[j] || group_len(e->v[j].key, &setting) != glen ||
			    strncmp(e->v[i].key, e->v[j].key, glen) != 0)
				continue;
			done[j] = true;
			r = conf_literal(e->v[j].key, e->v[j].value, &literal);
			if (r < 0)
				break;
			fprintf(f, "\t\t%s = %s;\n", setting, literal);
			free(literal);
			e->v[j].line = ++line;
		}
		fputs("\t};\n", f);
		line++;
	}
	fputs("};\n", f);
	free(done);
	return r;
}

static int fsync_dir(const char *path)
{
	char copy[PATH_MAX];
	int fd, r = 0;

	snprintf(copy, sizeof(copy), "%s", path);
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Replaces path with the entries, atomically; *why names the step that failed. */
static int write_atomically(const char *path, struct conf_entries *e, const char **why)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	FILE *f = NULL;
	int fd, r;

	snprintf(dir, sizeof(dir), "%s", path);
	if (mkdir(dirname(dir), 0755) < 0 && errno != EEXIST) {
		*why = "cannot create its directory";
		return -errno;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		*why = "cannot create a temporary file";
		return -errno;
	}
	*why = "cannot write a temporary file";
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		goto fail;
	}
	r = fchmod(fd, 0644) < 0 ? -errno : 0;
	if (r >= 0)
		r = render(e, f);
	if (r >= 0 && (fflush(f) != 0 || ferror(f)))
		r = -(errno ?: EIO);
	if (r >= 0 && fsync(fd) < 0)
		r = -errno;
	if (fclose(f) != 0 && r >= 0)
		r = -errno;
	if (r < 0)
		goto fail;
	if (rename(tmp, path) < 0) {
		r = -errno;
		*why = "cannot rename the temporary file over it";
		goto fail;
	}
	/* The rename itself is durable only once the directory is. */
	r = fsync_dir(path);
	if (r < 0)
		*why = "cannot sync its directory";
	return r;
fail:
	unlink(tmp);
	return r;
}

int saved_store(struct manager *m, const struct saved_change *ch, size_t n, struct proto_error *err)
{
	struct conf *c = m->conf;
	const char *path = c->control.save_file, *why = "";
	struct conf_diag diag = {0};
	struct conf_entries e = {0};
	char origin[PATH_MAX + 16];
	int r;

	r = conf_read_saved(path, &e, &diag);
	if (r < 0) {
		proto_error_set(err, PROTO_ERR_REFUSED,
				"applied at run time but not saved: %s (fix or remove it)",
				diag.n ? diag.lines[0] : path);
		conf_diag_clear(&diag);
		return r;
	}
	for (size_t i = 0; i < n && r >= 0; i++)
		r = merge(&e, &ch[i]);
	if (r >= 0)
		r = write_atomically(path, &e, &why);
	if (r < 0) {
		log_warn_errno(r, "%s: %s", path, why);
		proto_error_set(err, PROTO_ERR_INTERNAL,
				"applied at run time but not saved: %s: %s: %s", path, why,
				strerror(-r));
		conf_entries_clear(&e);
		return r;
	}
	/*
	 * The running configuration follows the change, so that config shows it and a reload
	 * keeps it; the file's other settings only move (their lines), a hand edit not
	 * reloaded yet stays for the next reload.
	 */
	for (size_t i = 0; i < e.n && r >= 0; i++) {
		bool changed = false;

		for (size_t j = 0; j < n; j++)
			changed = changed || strcmp(ch[j].key, e.v[i].key) == 0;
		snprintf(origin, sizeof(origin), "%s:%u", path, e.v[i].line);
		if (changed)
			r = conf_set_from(c, e.v[i].key, e.v[i].value, origin, NULL);
		else
			r = conf_move_origin(c, e.v[i].key, path, origin);
	}
	if (r >= 0 && !c->saved_source) {
		c->saved_source = strdup(path);
		r = c->saved_source ? 0 : -ENOMEM;
	}
	conf_entries_clear(&e);
	return r;
}
