/* SPDX-License-Identifier: GPL-2.0-only */
/* The privileged steps of latencyd's start that are not about modules or sysfs. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel.h"
#include "log.h"

int priv_check_root(const struct conf *c)
{
	if (!conf_needs_root(c) || geteuid() == 0)
		return 0;
	log_warnx("latencyd must run as root (session.domain = \"kernel\" or module.load = true "
		  "need it); only session.domain = \"userspace\" with module.load = false runs "
		  "unprivileged");
	return -EPERM;
}

/* liblttng-ctl's tracing group unless told another (lttng_set_tracing_group()). */
#define PRIV_TRACING_GROUP "tracing"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/*
 * Whose code the alert path runs: latencyd's own, the C library's, liblttng-ctl's, the
 * dynamic linker's (a library's lazily bound call) and the NSS modules': liblttng-ctl
 * looks the tracing group up (getgrnam()) at each call it makes for a user other than
 * root, the record's too (README: from an alert to its record).
 */
static bool on_alert_path(const char *path)
{
	static const char *const names[] = {"/latencyd", "/libc.so", "/liblttng-ctl.so",
					    "/ld-linux", "/libnss_"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(path, names[i]))
			return true;
	return false;
}

/* The code the alert path runs, read in now and so locked; the rest comes on fault. */
static void populate_code(void)
{
	char line[512];
	FILE *f;

	/*
	 * The lookup liblttng-ctl makes unprivileged (its default tracing group), made once
	 * first: the NSS modules it loads are mapped when the maps are read.
	 */
	if (geteuid() != 0)
		getgrnam(PRIV_TRACING_GROUP);
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8], path[256] = "";

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo, &hi, perms, path) >= 3 &&
		    perms[2] == 'x' && on_alert_path(path) &&
		    madvise((void *)lo, hi - lo, MADV_POPULATE_READ) < 0)
			log_debug("cannot read in %lx-%lx: %s", lo, hi, strerror(errno));
	}
	fclose(f);
}

/*
 * Locked on fault: what latencyd touches stays resident, the libraries' pages it never uses
 * are not read in at all (mlockall without MCL_ONFAULT made it 55 MB resident for 10 used).
 * Its code is read in now, and the waiter touches its stack and heap at start (waiter.c),
 * so that the alert path does not fault.
 */
bool priv_lock_memory(void)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0) {
		populate_code();
		return true;
	}
	log_warn("cannot lock memory (realtime.lock_memory)");
	munlockall(); /* a failed mlockall() may leave MCL_FUTURE set */
	return false;
}
