/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Logging, with few verbs: log_warn (appends strerror(errno), keeps errno), log_warnx,
 * log_info, log_debug, fatal/fatalx (log and exit 1); log_warn_errno for negative-errno
 * returns and log_fields for structured entries with extra FIELD=value pairs.
 *
 * Under systemd (INVOCATION_ID set, or JOURNAL_STREAM naming our stderr) entries go to the
 * journal with PRIORITY, MESSAGE, SYSLOG_IDENTIFIER, ERRNO and any extra fields; otherwise
 * to stderr as "ident: [level: ]message". This is the only file that talks to sd-journal.
 *
 * The logger's state is file-scoped: logging must work before, during and after the
 * manager's lifetime, and from every file, without a handle.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"
#include "text_clean.h"

#define LOG_LINE_MAX   2048
#define LOG_FIELDS_MAX 16

static struct {
	const char *ident;
	int level;
	bool journal;
} logger = {"latencyd", LOG_INFO, false};

/* The last warning, said or not (log.level may hide it): why a start-up failed. Any
 * thread may log one. */
static char last_warning[LOG_LINE_MAX];
static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct {
	const char *name;
	int level;
} levels[] = {
	{"error", LOG_ERR},
	{"warning", LOG_WARNING},
	{"info", LOG_INFO},
	{"debug", LOG_DEBUG},
};

int log_level_from_string(const char *s)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strcmp(levels[i].name, s) == 0)
			return levels[i].level;
	return -EINVAL;
}

const char *log_level_to_string(int level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (levels[i].level == level)
			return levels[i].name;
	return NULL;
}

/* JOURNAL_STREAM is "DEV:INO" of the stream systemd connected; it counts only if it is ours. */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void log_init(const char *ident, int level)
{
	logger.ident = ident;
	logger.level = level;
	logger.journal = getenv("INVOCATION_ID") || stderr_is_journal();
}

void log_set_level(int level)
{
	logger.level = level;
}

int log_get_level(void)
{
	return logger.level;
}

static const char *stderr_prefix(int pri)
{
	if (pri <= LOG_ERR)
		return "error: ";
	if (pri == LOG_WARNING)
		return "warning: ";
	if (pri == LOG_DEBUG)
		return "debug: ";
	return "";
}

static void to_journal(int pri, int err, const char *const *fields, const char *msg)
{
	char prio[32], message[LOG_LINE_MAX + 16], ident[64], errnum[32];
	struct iovec iov[4 + LOG_FIELDS_MAX];
	size_t n = 0;

	snprintf(prio, sizeof(prio), "PRIORITY=%d", pri);
	snprintf(message, sizeof(message), "MESSAGE=%s", msg);
	snprintf(ident, sizeof(ident), "SYSLOG_IDENTIFIER=%s", logger.ident);
	iov[n++] = (struct iovec){prio, strlen(prio)};
	iov[n++] = (struct iovec){message, strlen(message)};
	iov[n++] = (struct iovec){ident, strlen(ident)};
	if (err) {
		snprintf(errnum, sizeof(errnum), "ERRNO=%d", err);
		iov[n++] = (struct iovec){errnum, strlen(errnum)};
	}
	for (size_t i = 0; fields && fields[i] && i < LOG_FIELDS_MAX; i++)
		iov[n++] = (struct iovec){(void *)fields[i], strlen(fields[i])};
	sd_journal_sendv(iov, (int)n);
}

/* err: a positive errno to append, or 0. Never changes errno. */
static void vlog(int pri, int err, const char *const *fields, const char *fmt, va_list ap)
{
	int saved = errno;
	char msg[LOG_LINE_MAX];
	size_t len;

	if (pri > logger.level && pri != LOG_WARNING) {
		errno = saved;
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = strlen(msg);
	if (err && len < sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len, ": %s", strerror(err));
	/* A message holds what others chose: task names (any bytes a task gives itself), paths,
	 * peers' words. A newline would forge a line of its own on stderr, an escape sequence
	 * would reach the terminal of whoever reads the log. */
	text_clean(msg, false);
	if (pri == LOG_WARNING) {
		pthread_mutex_lock(&last_lock);
		memcpy(last_warning, msg, sizeof(msg));
		pthread_mutex_unlock(&last_lock);
	}
	if (pri > logger.level) {
		errno = saved;
		return;
	}
	if (logger.journal)
		to_journal(pri, err, fields, msg);
	else
		fprintf(stderr, "%s: %s%s\n", logger.ident, stderr_prefix(pri), msg);
	errno = saved;
}

void log_warn(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, err, NULL, fmt, ap);
	va_end(ap);
	errno = err;
}

int log_warn_errno(int err, const char *fmt, ...)
{
	va_list ap;

	err = err < 0 ? -err : err;
	va_start(ap, fmt);
	vlog(LOG_WARNING, err, NULL, fmt, ap);
	va_end(ap);
	return -err;
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, 0, NULL, fmt, ap);
	va_end(ap);
}

void log_errx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, 0, NULL, fmt, ap);
	va_end(ap);
}

void log_last_warning(char *buf, size_t size)
{
	pthread_mutex_lock(&last_lock);
	snprintf(buf, size, "%s", last_warning);
	pthread_mutex_unlock(&last_lock);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, 0, NULL, fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_DEBUG, 0, NULL, fmt, ap);
	va_end(ap);
}

/* fields: NULL-terminated "FIELD=value" strings, sent as journal fields, not to stderr. */
void log_fields(int priority, const char *const *fields, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, 0, fields, fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, err, NULL, fmt, ap);
	va_end(ap);
	exit(EXIT_FAILURE);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, 0, NULL, fmt, ap);
	va_end(ap);
	exit(EXIT_FAILURE);
}
