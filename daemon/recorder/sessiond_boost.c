// SPDX-License-Identifier: GPL-2.0-only
/*
 * lttng-sessiond serves its clients one at a time from one thread, "Client management",
 * at the priority it was started with. latencyd's realtime waiter reaches that thread
 * within a fraction of a millisecond of an alert; on a busy machine the thread then waits
 * for a CPU among the normal tasks, and a record asked by latencyd can start later than one
 * from LTTng's own trigger (whose notification and action threads wait the same way, but
 * ask nothing of the client thread). realtime.sessiond_boost lowers the nice value of that
 * one thread (issue #31): a record's request is then served ahead of normal tasks, while the
 * rest of sessiond and the consumer daemon that copies the buffers are left as they are.
 * It stays under the fair scheduler, never realtime: whatever a client asks of sessiond,
 * normal tasks still get their share. Applied to each sessiond latencyd starts watching,
 * so a restarted sessiond gets it again.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"
#include "recorder_internal.h"

/* The thread's name as the kernel keeps it (15 characters). */
#define CLIENT_THREAD "Client manageme"

int sessiond_boost(pid_t pid, unsigned boost)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int found = 0, r = 0;

	if (!boost)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && r == 0) {
		if (de->d_name[0] == '.' || !proc_comm_is(dirfd(d), de->d_name, CLIENT_THREAD))
			continue;
		found++;
		if (setpriority(PRIO_PROCESS, (id_t)atoi(de->d_name), -(int)boost) < 0)
			r = -errno;
		else
			log_info("lttng-sessiond (pid %d): its client thread (tid %s) at nice -%u "
				 "(realtime.sessiond_boost): records start ahead of normal tasks",
				 (int)pid, de->d_name, boost);
	}
	closedir(d);
	if (r < 0)
		log_warnx("lttng-sessiond (pid %d): cannot set its client thread's nice value to "
			  "-%u (realtime.sessiond_boost): %s",
			  (int)pid, boost, strerror(-r));
	else if (!found)
		log_warnx("lttng-sessiond (pid %d) has no thread named \"%s\": "
			  "realtime.sessiond_boost not applied",
			  (int)pid, CLIENT_THREAD);
	return r < 0 ? r : found ? 0 : -ESRCH;
}
