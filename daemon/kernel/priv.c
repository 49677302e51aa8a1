/* SPDX-License-Identifier: GPL-2.0-only */
/* The privileged steps of latencyd's start that are not about modules or sysfs. */
#include <errno.h>
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

bool priv_lock_memory(void)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
		return true;
	log_warn("cannot lock memory (realtime.lock_memory)");
	munlockall(); /* a failed mlockall() may leave MCL_FUTURE set */
	return false;
}
