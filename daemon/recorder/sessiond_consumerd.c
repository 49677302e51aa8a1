// SPDX-License-Identifier: GPL-2.0-only
/*
 * Whether the lttng-sessiond holding the session still has its lttng-consumerd, the child
 * that copies the buffers out. Killed, it is not started again: sessiond stays up, the
 * session looks alive, and every record fails ("Trace chunk creation failed on consumer")
 * until sessiond is restarted, which nothing in liblttng-ctl's errors says. A failed record
 * asks, and the operator is told once per sessiond.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "recorder_internal.h"

/* The parent, state and name of process DIR (a /proc entry); -errno when unreadable. */
static int parent_of(const char *dir, pid_t *ppid, char *state, char *comm, size_t size)
{
	char path[64], buf[512], *open, *close;
	size_t n;
	FILE *f;
	int p;

	snprintf(path, sizeof(path), "/proc/%s/stat", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* "PID (COMM) STATE PPID ...": COMM may hold blanks and parentheses. */
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open || sscanf(close + 1, " %c %d", state, &p) != 2)
		return -EINVAL;
	snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
	*ppid = p;
	return 0;
}

/* 1: PID has an lttng-consumerd child; 0: none; -errno: PID itself cannot be seen. */
static int has_consumerd(pid_t pid)
{
	char self[16], comm[32], state;
	struct dirent *de;
	pid_t ppid;
	int found = 0;
	DIR *d;

	/* A /proc that hides other users' processes would hide its children too. */
	snprintf(self, sizeof(self), "%d", (int)pid);
	if (parent_of(self, &ppid, &state, comm, sizeof(comm)) < 0)
		return -ESRCH;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!found && (de = readdir(d)))
		/* Killed, it stays a zombie until sessiond reaps it, which it may never do. */
		found = isdigit((unsigned char)de->d_name[0]) &&
			parent_of(de->d_name, &ppid, &state, comm, sizeof(comm)) == 0 &&
			ppid == pid && state != 'Z' && strcmp(comm, "lttng-consumerd") == 0;
	closedir(d);
	return found;
}

void sessiond_watch_consumerd(struct sessiond_watch *w)
{
	if (w->pid <= 0 || w->consumerd_gone == w->pid || has_consumerd(w->pid) != 0)
		return;
	w->consumerd_gone = w->pid;
	log_warnx("lttng-sessiond (pid %d) has no lttng-consumerd any more (killed?): records "
		  "fail until lttng-sessiond is restarted (systemctl restart lttng-sessiond)",
		  (int)w->pid);
}
