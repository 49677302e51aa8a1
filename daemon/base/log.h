/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.c: stderr, or the journal (structured) when running under systemd. The only file of
 * latencyd that talks to sd-journal.
 */
#ifndef LATENCYD_BASE_LOG_H
#define LATENCYD_BASE_LOG_H

#include <stddef.h>
#include <syslog.h>

void log_init(const char *ident, int level);
void log_set_level(int level);
int log_get_level(void);
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Error priority, shown whatever log.level says: a failure to start or to configure. */
void log_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last warning logged, even one log.level hid, into BUF: "" if none. */
void log_last_warning(char *buf, size_t size);
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int log_warn_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* FIELDS: NULL-terminated "KEY=value" journal fields (a NULL entry ends them early). */
void log_fields(int priority, const char *const *fields, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LATENCYD_BASE_LOG_H */
