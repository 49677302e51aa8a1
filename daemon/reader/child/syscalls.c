// SPDX-License-Identifier: GPL-2.0-only
/*
 * What latencyd-reader may still ask of the kernel (syscalls.h). Without a capability it
 * keeps root's uid, and with it root's standing with whatever trusts a uid rather than a
 * capability: latencyd's control socket and lttng-sessiond's admit uid 0, root's processes
 * take its signals, root's files in latencyd's writable directories its writes. A
 * snapshot's reader needs none of that: it opens files to read, maps memory, runs threads
 * and writes its result to a descriptor it was given. The filter refuses the rest that
 * could reach beyond it (EPERM, as a lack of permission reads to a library), and the calls
 * that open kernel surface no reader needs (io_uring, whose operations bypass the filter;
 * user namespaces, in which it would get capabilities back; bpf, perf, keys), and new
 * processes: threads only, so that killing the reader ends all it started.
 *
 * A denylist, the default allowed: a parser library's needs change with its versions, and
 * a call it makes that an allowlist forgot would fail every read. Another ABI's calls
 * (int $0x80, x32) kill the process: nothing here is built for them.
 *
 * Not taken away: reading what root owns (the snapshot is root's, and so are the
 * libraries and plugins it loads). What it reads can leave only through its result, which
 * latencyd bounds and checks, and its stderr, the journal.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/sockios.h>
#include <seccomp.h>

#include "syscalls.h"

/* Calls refused whatever their arguments. */
static const int refused[] = {
	/* reaching other processes: sockets (a connection to a root-only socket), tracing */
	SCMP_SYS(socket),
	SCMP_SYS(socketpair),
	SCMP_SYS(tkill),
	SCMP_SYS(pidfd_open),
	SCMP_SYS(pidfd_send_signal),
	SCMP_SYS(pidfd_getfd),
	SCMP_SYS(process_vm_readv),
	SCMP_SYS(process_vm_writev),
	SCMP_SYS(process_madvise),
	/* changing files: the names, modes, owners and attributes */
	SCMP_SYS(creat),
	SCMP_SYS(openat2), /* its flags are out of the filter's reach; glibc uses openat */
	SCMP_SYS(unlink),
	SCMP_SYS(unlinkat),
	SCMP_SYS(rename),
	SCMP_SYS(renameat),
	SCMP_SYS(renameat2),
	SCMP_SYS(mkdir),
	SCMP_SYS(mkdirat),
	SCMP_SYS(rmdir),
	SCMP_SYS(link),
	SCMP_SYS(linkat),
	SCMP_SYS(symlink),
	SCMP_SYS(symlinkat),
	SCMP_SYS(mknod),
	SCMP_SYS(mknodat),
	SCMP_SYS(chmod),
	SCMP_SYS(fchmod),
	SCMP_SYS(fchmodat),
	SCMP_SYS(chown),
	SCMP_SYS(fchown),
	SCMP_SYS(lchown),
	SCMP_SYS(fchownat),
	SCMP_SYS(truncate),
	SCMP_SYS(utime),
	SCMP_SYS(utimes),
	SCMP_SYS(utimensat),
	SCMP_SYS(futimesat),
	SCMP_SYS(setxattr),
	SCMP_SYS(lsetxattr),
	SCMP_SYS(fsetxattr),
	SCMP_SYS(removexattr),
	SCMP_SYS(lremovexattr),
	SCMP_SYS(fremovexattr),
	SCMP_SYS(name_to_handle_at),
	SCMP_SYS(open_by_handle_at),
	/* kernel surface a reader has no use for */
	SCMP_SYS(io_uring_setup),
	SCMP_SYS(io_uring_enter),
	SCMP_SYS(io_uring_register),
	SCMP_SYS(unshare),
	SCMP_SYS(setns),
	SCMP_SYS(bpf),
	SCMP_SYS(perf_event_open),
	SCMP_SYS(userfaultfd),
	SCMP_SYS(keyctl),
	SCMP_SYS(add_key),
	SCMP_SYS(request_key),
	SCMP_SYS(fanotify_init),
	SCMP_SYS(mount),
	SCMP_SYS(umount2),
	SCMP_SYS(pivot_root),
	SCMP_SYS(chroot),
	SCMP_SYS(acct),
	SCMP_SYS(quotactl),
	/* IPC objects root's processes may share: message queues, SysV's */
	SCMP_SYS(mq_open),
	SCMP_SYS(mq_unlink),
	SCMP_SYS(mq_timedsend),
	SCMP_SYS(mq_timedreceive),
	SCMP_SYS(mq_notify),
	SCMP_SYS(mq_getsetattr),
	SCMP_SYS(msgget),
	SCMP_SYS(msgsnd),
	SCMP_SYS(msgrcv),
	SCMP_SYS(msgctl),
	SCMP_SYS(semget),
	SCMP_SYS(semop),
	SCMP_SYS(semtimedop),
	SCMP_SYS(semctl),
	SCMP_SYS(shmget),
	SCMP_SYS(shmat),
	SCMP_SYS(shmctl),
};

/* Called by the sanitizers' runtime (LeakSanitizer stops the threads from a process it
 * clones, with ptrace; a report runs llvm-symbolizer): refused only in a build without
 * them, as are processes (threads_only()). */
static const int refused_unsanitized[] = {
	SCMP_SYS(ptrace), SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork),
};

/* Flags of open(2) that write or make a file: any of them refused. */
static const int writing[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND};

static int refuse(scmp_filter_ctx ctx, int nr, unsigned n, const struct scmp_arg_cmp *cmp,
		  char *why, size_t whylen)
{
	int r = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, n, cmp);
	char *name;

	if (r == 0)
		return 0;
	name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	snprintf(why, whylen, "seccomp: cannot refuse %s: %s", name ? name : "a call",
		 strerror(-r));
	free(name);
	return r;
}

static int refuse_writes(scmp_filter_ctx ctx, char *why, size_t whylen)
{
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(writing) / sizeof(writing[0]); i++) {
		const scmp_datum_t f = (scmp_datum_t)writing[i];
		const struct scmp_arg_cmp open_flags = SCMP_A1(SCMP_CMP_MASKED_EQ, f, f);
		const struct scmp_arg_cmp openat_flags = SCMP_A2(SCMP_CMP_MASKED_EQ, f, f);

		r = refuse(ctx, SCMP_SYS(open), 1, &open_flags, why, whylen);
		if (!r)
			r = refuse(ctx, SCMP_SYS(openat), 1, &openat_flags, why, whylen);
	}
	return r;
}

/*
 * Signals to itself only (abort(), a thread's raise()): root's processes would take them,
 * and other ways to signal them too: another process's resource limits (RLIMIT_CPU kills
 * it), a descriptor's owner (SIGIO, or F_SETSIG's signal), a terminal's input (TIOCSTI).
 */
static int own_signals(scmp_filter_ctx ctx, char *why, size_t whylen)
{
	const scmp_datum_t self = (scmp_datum_t)getpid();
	const struct scmp_arg_cmp other = SCMP_A0(SCMP_CMP_NE, self);
	const int calls[] = {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo),
			     SCMP_SYS(rt_tgsigqueueinfo)};
	/* Another process's limits set (glibc's getrlimit and setrlimit give pid 0). */
	const struct scmp_arg_cmp another[] = {SCMP_A0(SCMP_CMP_NE, 0), SCMP_A2(SCMP_CMP_NE, 0)};
	const unsigned long fcntls[] = {F_SETOWN, F_SETOWN_EX, F_SETSIG};
	const unsigned long ioctls[] = {FIOSETOWN, SIOCSPGRP, TIOCSTI, TIOCLINUX};
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(calls) / sizeof(calls[0]); i++)
		r = refuse(ctx, calls[i], 1, &other, why, whylen);
	if (!r)
		r = refuse(ctx, SCMP_SYS(prlimit64), 2, another, why, whylen);
	for (size_t i = 0; !r && i < sizeof(fcntls) / sizeof(fcntls[0]); i++) {
		const struct scmp_arg_cmp cmd = SCMP_A1(SCMP_CMP_EQ, fcntls[i]);

		r = refuse(ctx, SCMP_SYS(fcntl), 1, &cmd, why, whylen);
	}
	for (size_t i = 0; !r && i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		/* The request is an int: the upper half of its register is the caller's. */
		const struct scmp_arg_cmp req =
			SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, ioctls[i]);

		r = refuse(ctx, SCMP_SYS(ioctl), 1, &req, why, whylen);
	}
	return r;
}

/*
 * Threads only, and no new user namespace (clone3's flags are out of reach: ENOSYS, and
 * glibc falls back to clone): a process it started would outlive its kill.
 */
static int threads_only(scmp_filter_ctx ctx, char *why, size_t whylen)
{
	const struct scmp_arg_cmp process = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
	const struct scmp_arg_cmp userns =
		SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);
	int r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);

	if (r < 0) {
		snprintf(why, whylen, "seccomp: cannot refuse clone3: %s", strerror(-r));
		return r;
	}
	r = refuse(ctx, SCMP_SYS(clone), 1, &process, why, whylen);
	return r ? r : refuse(ctx, SCMP_SYS(clone), 1, &userns, why, whylen);
}

int syscalls_confine(bool sanitized, char *why, size_t whylen)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r = 0;

	if (!ctx) {
		snprintf(why, whylen, "seccomp: cannot make a filter");
		return -ENOMEM;
	}
	/* libseccomp's default kills the calling thread alone. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		snprintf(why, whylen, "seccomp: cannot kill on another ABI: %s", strerror(-r));
	for (size_t i = 0; !r && i < sizeof(refused) / sizeof(refused[0]); i++)
		r = refuse(ctx, refused[i], 0, NULL, why, whylen);
	for (size_t i = 0; !r && !sanitized && i < sizeof(refused_unsanitized) / sizeof(int); i++)
		r = refuse(ctx, refused_unsanitized[i], 0, NULL, why, whylen);
	if (!r)
		r = refuse_writes(ctx, why, whylen);
	if (!r)
		r = own_signals(ctx, why, whylen);
	if (!r && !sanitized)
		r = threads_only(ctx, why, whylen);
	if (!r) {
		r = seccomp_load(ctx);
		if (r < 0)
			snprintf(why, whylen, "seccomp: cannot load the filter: %s", strerror(-r));
	}
	seccomp_release(ctx);
	return r;
}
