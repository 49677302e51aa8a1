/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Real file-system faults for the deletion tests (root only): a file made immutable, and the
 * same done between a check and the deletion that follows it, by a thread answering the
 * fanotify permission events of a directory's opens.
 */
#ifndef LATENCYD_FAULT_FILES_H
#define LATENCYD_FAULT_FILES_H

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/fanotify.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/fs.h>

#include "tests.h"

/* FS_IOC_SETFLAGS: PATH's attribute FLAG (FS_IMMUTABLE_FL...) set (ON) or not, as chattr. */
static inline void test_fs_flag(const char *path, int flag, bool on)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), flags;

	ASSERT_TRUE(fd >= 0);
	ASSERT_EQ(ioctl(fd, FS_IOC_GETFLAGS, &flags), 0);
	flags = on ? flags | flag : flags & ~flag;
	ASSERT_EQ(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
	close(fd);
}

/* PATH immutable (ON) or not, as chattr +i / -i. */
static inline void test_immutable(const char *path, bool on)
{
	test_fs_flag(path, FS_IMMUTABLE_FL, on);
}

struct test_fault {
	const char *watched;   /* a directory: its second open makes ... */
	const char *immutable; /* ... this one immutable before the open goes on */
	int ready[2];
	pthread_t thread;
};

/*
 * Makes fault->immutable immutable at the second open of fault->watched, while that open
 * waits: the first open is the check's, the second the deletion's, so that the check passes
 * and the deletion meets the fault.
 */
static inline void *test_fault_inject(void *arg)
{
	struct test_fault *f = arg;
	int fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_CLOEXEC), opens = 0;
	struct fanotify_event_metadata ev;

	ASSERT_TRUE(fan >= 0);
	ASSERT_EQ(fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR, AT_FDCWD, f->watched),
		  0);
	ASSERT_EQ(write(f->ready[1], "y", 1), 1);
	while (opens < 2 && read(fan, &ev, sizeof(ev)) == (ssize_t)sizeof(ev)) {
		struct fanotify_response allow = {.fd = ev.fd, .response = FAN_ALLOW};

		if (++opens == 2)
			test_immutable(f->immutable, true);
		ASSERT_EQ(write(fan, &allow, sizeof(allow)), (ssize_t)sizeof(allow));
		close(ev.fd);
	}
	close(fan);
	return NULL;
}

/* The fault armed: returns once its watch is in place. */
static inline void test_fault_arm(struct test_fault *f, const char *watched, const char *immutable)
{
	char ch;

	f->watched = watched;
	f->immutable = immutable;
	ASSERT_EQ(pipe(f->ready), 0);
	ASSERT_EQ(pthread_create(&f->thread, NULL, test_fault_inject, f), 0);
	ASSERT_EQ(read(f->ready[0], &ch, 1), 1);
}

/* Once the deletion is done: the fault met. */
static inline void test_fault_done(struct test_fault *f)
{
	ASSERT_EQ(pthread_join(f->thread, NULL), 0);
	close(f->ready[0]);
	close(f->ready[1]);
}

#endif /* LATENCYD_FAULT_FILES_H */
