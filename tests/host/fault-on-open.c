// SPDX-License-Identifier: GPL-2.0-only
/*
 * fault-on-open WATCHED N TARGET READY: a real fault at a chosen moment. Watches directory
 * WATCHED with a fanotify permission event and, at its Nth open, makes TARGET immutable
 * (chattr +i) before that open goes on; then exits. READY is created once it watches. Root
 * only (fanotify permission events, CAP_LINUX_IMMUTABLE). A test counts the opens of the
 * code under test to put the fault between two of its steps (a check and a deletion).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/fs.h>

static int immutable(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), flags, r = -1;

	if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
		flags |= FS_IMMUTABLE_FL;
		r = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	if (fd >= 0)
		close(fd);
	return r;
}

int main(int argc, char **argv)
{
	struct fanotify_event_metadata ev;
	int fan, ready, n, opens = 0;

	if (argc != 5 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: fault-on-open WATCHED N TARGET READY\n");
		return 2;
	}
	fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_CLOEXEC);
	if (fan < 0 ||
	    fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR, AT_FDCWD, argv[1]) < 0) {
		perror("fault-on-open: fanotify");
		return 1;
	}
	ready = open(argv[4], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (ready < 0) {
		perror(argv[4]);
		return 1;
	}
	close(ready);
	while (opens < n && read(fan, &ev, sizeof(ev)) == (ssize_t)sizeof(ev)) {
		struct fanotify_response allow = {.fd = ev.fd, .response = FAN_ALLOW};

		if (++opens == n && immutable(argv[3]) < 0)
			perror(argv[3]);
		if (write(fan, &allow, sizeof(allow)) != (ssize_t)sizeof(allow))
			perror("fault-on-open: response");
		close(ev.fd);
	}
	fprintf(stderr, "fault-on-open: %s opened %d time(s); %s made immutable\n", argv[1], opens,
		argv[3]);
	return opens == n ? 0 : 1;
}
