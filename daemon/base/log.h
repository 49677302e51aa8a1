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

/*
 * MESSAGE_ID= of the journal entries an administrator looks for (journalctl
 * MESSAGE_ID=...), each explained by systemd/latencyd.catalog (journalctl -x). Never
 * changed once released: scripts and alerting rules match them.
 */
#define LOG_MID_STARTED	     "MESSAGE_ID=277fd594128a473886290997ab56c546"
#define LOG_MID_STOPPED	     "MESSAGE_ID=ebb2813817f447b59d4b389267ed04d5"
#define LOG_MID_START_FAILED "MESSAGE_ID=2751956206e849789f968878e18d3ac2"
#define LOG_MID_ALERT	     "MESSAGE_ID=2eeb5d1771054fa7bf723c6a87596ec2" /* got a snapshot */
#define LOG_MID_SNAPSHOT     "MESSAGE_ID=31fbf276c1a24ad194d19dd32190b299" /* recorded */
#define LOG_MID_REFUSED	     "MESSAGE_ID=10a07942ceb447308532bc5154333d80" /* rate limit */
#define LOG_MID_INCIDENT     "MESSAGE_ID=edb949cff5cc4431a2a6d6beefe6ccb8" /* its outcome */

#endif /* LATENCYD_BASE_LOG_H */
