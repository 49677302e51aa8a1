/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the conf layer: the settings table's row type and the helpers its files share.
 * Nothing outside daemon/conf/ includes this, but for tests/unit/test-conf-files.c.
 */
#ifndef LATENCYD_CONF_INTERNAL_H
#define LATENCYD_CONF_INTERNAL_H

#include <stdarg.h>

#include "conf.h"

enum conf_type {
	CONF_SOCKET_PATH,  /* char *: absolute, fits in sun_path */
	CONF_GROUP,	   /* char * name (may be ""), gid_t at aux_offset */
	CONF_LOG_LEVEL,	   /* int: LOG_ERR .. LOG_DEBUG */
	CONF_STRING,	   /* char *, anything (may be "") */
	CONF_NAME,	   /* char *: non-empty, no '/', no whitespace */
	CONF_PATH,	   /* char *: absolute path */
	CONF_PATH_OFF,	   /* char *: "" (off) or an absolute path */
	CONF_URL,	   /* char *: "" or an LTTng network URL (net://, net6://, tcp://) */
	CONF_BOOL,	   /* bool */
	CONF_UINT,	   /* uint64_t in [min, max] */
	CONF_POW2,	   /* uint64_t, a power of two in [min, max] */
	CONF_RATE,	   /* double in [min, max] (events per second) */
	CONF_RATE_LIMIT,   /* double in (0, max]: a limit that cannot be off (fleet) */
	CONF_DOMAIN,	   /* int: FLIGHT_DOMAIN_* */
	CONF_EVENTS,	   /* char **: NULL-terminated list of tracepoint names, not empty */
	CONF_OVERRIDES,	   /* char **: list of "TRACKER=RATE/BURST" */
	CONF_UINT_OFF,	   /* uint64_t, 0 or in [min, max] */
	CONF_DURATION,	   /* uint64_t ns, "10ms" (a unit is required) in [min, max] */
	CONF_DURATION_OFF, /* uint64_t ns, "0" or a duration in [min, max] */
	CONF_COMM,	   /* char *: "" or a task name (at most 15 bytes) */
	CONF_CGROUP,	   /* char *: "" or a cgroup v2 path or id, resolved when applied */
	CONF_BROKER,	   /* char *: an MQTT broker URL, mqtt://HOST[:PORT] or mqtts:// */
	CONF_FLEET_NAME,   /* char *: a fleet name, [A-Za-z0-9._-] (or "" when OFF allows) */
	CONF_CPU_LIST,	   /* char *: "" (all) or CPUs as "0", "0-1,4" (thread_cpus_parse()) */
	CONF_PROM_FILE,	   /* char *: "" (off) or DIR/NAME.prom, DIR an existing directory */
};

/* How a type is spelled in the file. */
enum conf_kind {
	KIND_STRING,
	KIND_BOOL,
	KIND_INT,
	KIND_NUMBER,   /* int or float */
	KIND_LIST,     /* list or array of strings */
	KIND_DURATION, /* a string with a unit, "10ms" */
};

struct conf_key {
	const char *name; /* section.setting */
	enum conf_type type;
	size_t offset;
	size_t aux_offset;
	const char *def; /* lists: comma-separated */
	uint64_t min, max;
};

extern const struct conf_key conf_keys[];
extern const size_t conf_n_keys;

/* table.c */
bool conf_key_is_string(enum conf_type t);	  /* a char * field, freed by conf_free() */
bool conf_key_zero_off(const struct conf_key *k); /* 0 also allowed: off, the default */
enum conf_kind conf_kind_of(enum conf_type t);
const struct conf_key *conf_find_key(const char *name);
bool conf_is_section(const char *name); /* a proper prefix of some key, up to a dot */

/* value.c */
int conf_set_string(char **field, const char *value);
/* Parses value into the row's field; on failure writes the problem into why. */
int conf_set_value(struct conf *c, const struct conf_key *k, const char *value, char *why,
		   size_t whylen);
int conf_set_origin(struct conf *c, const struct conf_key *k, const char *origin);

/* text.c */
/* Whether value is one of k's, a type kept as text (0); -EINVAL, and why, when not. */
int conf_check_text(const struct conf_key *k, const char *value, char *why, size_t whylen);

/* source.c: the text libconfig parses, every file read here (libconfig opens none). */
#define CONF_FILE_MAX (16 * 1024 * 1024)
struct conf_span {
	unsigned line;	    /* the text's line where it starts */
	unsigned file;	    /* files[file]'s lines from here */
	unsigned file_line; /* from this one */
};
struct conf_name {
	char *name; /* a setting's full name, "section.setting" */
	unsigned line;
};
struct conf_text {
	struct conf_diag *diag; /* the problems found, as "FILE:LINE: problem" */
	unsigned errors;
	bool includes;	 /* @include is followed, else an error */
	bool cut_short;	 /* a scan stopped (too large, too many files): not to be parsed */
	unsigned said;	 /* problems said by the scan, at most its limit */
	unsigned unsaid; /* the others, counted */
	char *text;	 /* what libconfig parses: each @include replaced by its file */
	size_t len, cap;
	unsigned line; /* the line text's end is on */
	char **files;  /* files[0]: the file read first, or the name the text is given */
	size_t n_files;
	struct conf_span *spans;
	size_t n_spans;
	struct conf_name *names; /* each "name =" in order, for duplicates */
	size_t n_names, names_cap;
	char **refused; /* settings whose number was refused (said) by the scan */
	size_t n_refused;
};
/*
 * At most MAX bytes of PATH, which must be a regular file: a FIFO or a device is refused,
 * never opened for reading. NULL with errno and WHY set on failure.
 */
char *conf_file_read(const char *path, size_t max, size_t *len, char *why, size_t whylen);
/* TEXT, LEN bytes, of NAME into t->text; 0, or -EINVAL with the problems in t->diag. */
int conf_text_read(struct conf_text *t, const char *name, const char *text, size_t len,
		   bool includes);
/* The file and its line that the text's LINE comes from. */
const char *conf_text_where(const struct conf_text *t, unsigned line, unsigned *file_line);
/* The setting named a second time on the text's LINE (*FIRST: its first), else NULL. */
const char *conf_text_duplicate(const struct conf_text *t, unsigned line, unsigned *first);
bool conf_text_refused(const struct conf_text *t, const char *name);
void conf_text_free(struct conf_text *t);

/* diag.c */
__attribute__((format(printf, 2, 0))) void conf_diag_vline(struct conf_diag *diag, const char *fmt,
							   va_list ap);
__attribute__((format(printf, 2, 3))) void conf_diag_line(struct conf_diag *diag, const char *fmt,
							  ...);

#endif /* LATENCYD_CONF_INTERNAL_H */
