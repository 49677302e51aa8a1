/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * The kernel <-> user-space ABI of the latency_tracker module: the one definition,
 * included by the module and by latencyd. Only fixed-width fields, explicit padding.
 *
 * Files
 *   /sys/kernel/latency_tracker/abi_version      "MAJOR.MINOR\n"
 *   /sys/kernel/latency_tracker/device_names     write-only (ABI 1.5): "MAJOR:MINOR NAME\n"
 *                                                lines, one latency_tracker_device_name
 *                                                tracepoint each; NAME is 1 to 31 of
 *                                                [A-Za-z0-9._-]. A bad line fails the
 *                                                write with EINVAL, after the good ones.
 *   /sys/kernel/latency_tracker/<tracker>/       one directory per tracker (see below)
 *   /dev/latency_tracker                         the notification file (a misc device,
 *                                                mode 0600; usable under lockdown, unlike
 *                                                debugfs). Its major:minor is in
 *                                                /sys/class/misc/latency_tracker/dev.
 *
 * Notification file semantics
 *   - read() returns a whole number of records, never a partial one; the buffer must
 *     hold at least one record (else -EINVAL). Records are all the same size within one
 *     ABI major; step through them with rec->size.
 *   - Blocking read waits for a record; with O_NONBLOCK it fails with -EAGAIN.
 *   - poll()/epoll report POLLIN | POLLRDNORM only when this open file has records to read.
 *   - Threads of one open file pinned to one CPU each (ABI 1.6): an alert wakes the
 *     thread(s) of that file waiting on the CPU that raised it, and only when none waits
 *     there every thread of the file; threads free to run on several CPUs are woken by
 *     every alert. A reader with a thread per CPU is thus woken without an
 *     interprocessor interrupt. When a realtime or deadline task holds the CPU that
 *     raised it, every thread of the file is woken (on PREEMPT_RT from another CPU).
 *     Open files are woken independently of one another.
 *     read() and poll()/select() choose the queue at each wait; epoll chooses it once,
 *     at EPOLL_CTL_ADD: an epoll instance registered by a pinned thread stays on that
 *     CPU's queue and misses the alerts of another CPU where a thread of the same open
 *     file waits. Register epoll from an unpinned thread, or give it its own open file.
 *   - The kernel keeps the last N records in one shared ring (N: ring_records in sysfs).
 *     Each open file has its own read position, so any number of readers each see every
 *     record; they never steal records from one another. A new open starts at the oldest
 *     record still in the ring; lseek(fd, 0, SEEK_END) skips to the newest, lseek(fd, 0,
 *     SEEK_SET) rewinds to the oldest. Two threads reading the same open file are
 *     serialised (each record is returned once per open file).
 *   - A reader that falls more than N records behind gets, in order, a record of kind
 *     LATENCY_TRACKER_REC_LOST whose .lost says how many records it missed and whose
 *     .seq is the first missed sequence number, then the oldest records still there.
 *   - Two rate limits guard the ring (ABI 1.3): first the alerting tracker's own
 *     (its alert_rate_per_s and alert_burst; none while its alert_rate_per_s is 0), then
 *     the global one (the root's alert_rate_per_s and alert_burst), the overall cap. A
 *     record takes one token from each; a tracker out of tokens is refused without
 *     touching the global bucket, so a storm in one tracker leaves the global budget to
 *     the others.
 *   - Alerts the module could not put in the ring at all (either rate limit, or a record
 *     raised from an NMI while the ring was busy on that CPU) are counted: the next
 *     record's .suppressed holds how many were dropped since the previous record, and
 *     sysfs holds the totals (alerts_suppressed: refused by a rate limit, either one;
 *     alerts_dropped) and, per tracker, stats/throttled (its own limit), stats/suppressed
 *     (the global limit) and stats/busy. seq numbers only count records that entered the
 *     ring, so a gap in seq always means LOST, never suppression.
 *
 * Per-tracker sysfs files (units in the names; every time is in nanoseconds)
 *   enabled          0/1 (rw). Enabling preallocates max_keys entries.
 *   threshold_ns     (rw) a key closed after at least this long raises an alert.
 *   timeout_ns       (rw) 0 = off; a key still open after this long raises a timeout
 *                    alert once and stays pending (its discard as stale, below, may
 *                    raise a second, its last). Keys are checked every period =
 *                    min(timeout_ns, stale_ns) / 4, at least 1 ms and 256 ns per
 *                    bucket of the key table (max_keys rounded up to a power of two:
 *                    268 ms for 2^20 keys), at most 1 s: an alert or a discard comes at
 *                    most one period (and the walk's own time) late. With neither a
 *                    timeout nor stale_ns, keys are walked once a second all the same.
 *   stale_ns         (rw) 0 = never; a key still open after this long is discarded
 *                    (must be greater than timeout_ns when both are set). ABI 1.7: in
 *                    the block, fs and app trackers, which see every key's end, one
 *                    discarded at or past threshold_ns first raises a TIMEOUT record
 *                    flagged LATENCY_TRACKER_REC_F_DISCARDED (counted in stats/timeouts).
 *                    Elsewhere a stale key may be an end the tracker did not see
 *                    (filtered, coalesced, merged): discarded silently.
 *   max_keys         (rw, only while disabled: -EBUSY otherwise). A tracker's key table
 *                    (with stack "in", the stacks too) of more than 1/16 of the RAM is
 *                    refused (the bound is per tracker, not a total):
 *                    this write, a write of stack or enabling fails with -E2BIG, and
 *                    the kernel log says how many bytes it would take; a smaller one
 *                    the kernel cannot allocate fails enabling with -ENOMEM.
 *   stack            (rw, only while disabled) "none", "alert" (stack of the context that
 *                    raises the alert) or "in" (stack saved at event_in, costly).
 *   alert_rate_per_s (rw, ABI 1.3) the tracker's own alert limit, records per second
 *                    into the ring: 0 = none (the default: only the global limit), or
 *                    1..1000000.
 *   alert_burst      (rw, ABI 1.3) records the tracker may send at once, 1..65536
 *                    (default LATENCY_TRACKER_TRACKER_ALERT_BURST); only used while its
 *                    alert_rate_per_s is set.
 *   key_size, type, dup_policy   (ro) fixed by the tracker that created it.
 *   filter_tgid, filter_tid, filter_comm, filter_cgroup_id   (rw, the trackers of
 *                    module latency_tracker_NAME) only tasks matching every filter set
 *                    are tracked; 0 or "" = not set. filter_cgroup_id is the id (inode
 *                    number) of a cgroup v2 directory and matches that cgroup and every
 *                    cgroup below it (ABI 1.3; before: that cgroup only); an id of no
 *                    cgroup v2 cgroup fails with ENOENT.
 *   stats/...        (ro) counters and delay statistics of matched in/out pairs:
 *                    events_in, events_out, alerts, timeouts, suppressed (refused by the
 *                    global alert limit), throttled (ABI 1.3: refused by its own alert
 *                    limit), filtered, duplicates, table_full, key_invalid, unmatched,
 *                    busy (calls that backed off: nested on their CPU, or a lookup
 *                    that gave up on a chain changing under it), stale, discarded,
 *                    drops (sum of every lost event, each once: a lookup or update
 *                    that backed off loses none and is in busy only), pending (root
 *                    only: a read walks the key table),
 *                    delay_count, delay_min_ns, delay_max_ns, delay_mean_ns (exact
 *                    past 2^64 ns of summed delay),
 *                    delay_hist_ns (lines "<lower bound ns> <count>", buckets
 *                    [2^i, 2^(i+1)) ns, non-empty buckets only).
 *   hist/...         (ABI 1.4) latency distributions of every matched pair (not only
 *                    alerts), log2 buckets: bucket i covers [2^i, 2^(i+1)) ns and is
 *                    printed by its lower bound, bucket 0 covers [0, 2) and prints 0.
 *                    since_ns and now_ns are CLOCK_MONOTONIC (ktime_get_ns()): the last
 *                    reset (or the tracker's creation) and the time of the read.
 *     hist/delay_ns  (ro) line 1 "since_ns <u64> now_ns <u64>", then one line
 *                    "<lower bound ns> <count>" per non-empty bucket, increasing: the
 *                    buckets of stats/delay_hist_ns counted since since_ns.
 *     hist/per       (rw) the dimension kept besides the total: "none" (default), "cpu"
 *                    (every tracker), "disk" (trackers whose key holds a block device:
 *                    block, iosched), "syscall" (syscalls). An unknown word fails with
 *                    EINVAL, a dimension the tracker does not have with EOPNOTSUPP.
 *                    Changing it resets hist/by_key (and its since_ns).
 *     hist/by_key    (ro, root only: mode 0400; a read renders every key anew) line 1 as
 *                    in hist/delay_ns, line 2 "per <word>", then one line
 *                    "<key> <lower bound ns> <count>" per non-empty (key, bucket),
 *                    grouped by key, keys and buckets increasing ("other" last, the
 *                    disks by their dev_t). Keys: cpu: the CPU number;
 *                    disk: "MAJ:MIN"; syscall: the system call number. At most
 *                    LATENCY_TRACKER_HIST_KEYS keys, first come first served; the
 *                    delays of any further key are counted under the key "other". With
 *                    per "none": the two header lines only. A read from offset 0 takes
 *                    the snapshot that reads at later offsets continue.
 *     hist/reset     (wo) "1" zeroes hist/delay_ns and hist/by_key and sets their
 *                    since_ns to now; anything else: EINVAL. A pair completing on another
 *                    CPU during the reset may stay counted.
 * Writes are parsed strictly: anything else than the documented values, out of range
 * values and writes holding a NUL byte included, fails with -EINVAL and changes nothing.
 */
#ifndef _UAPI_LATENCY_TRACKER_H
#define _UAPI_LATENCY_TRACKER_H

#include <linux/types.h>

#define LATENCY_TRACKER_MODULE_NAME "latency_tracker"

/* A major bump breaks readers; a minor bump only appends fields or values. */
#define LATENCY_TRACKER_ABI_MAJOR 1
#define LATENCY_TRACKER_ABI_MINOR 7

/* device_names (ABI 1.5): a name's longest, its terminating NUL included. */
#define LATENCY_TRACKER_DEVNAME_LEN 32

/* sysfs root of the module's own files, relative to /sys. */
#define LATENCY_TRACKER_SYSFS_DIR "kernel/latency_tracker"

/*
 * The trackers: sysfs directory SYSFS_DIR/NAME, created by module latency_tracker_NAME
 * (ABI 1.2: this list).
 */
#define LATENCY_TRACKER_NAME_SYSCALLS "syscalls"
#define LATENCY_TRACKER_NAME_WAKEUP "wakeup"
#define LATENCY_TRACKER_NAME_OFFCPU "offcpu"
#define LATENCY_TRACKER_NAME_BLOCK "block"
#define LATENCY_TRACKER_NAME_IRQ "irq"
#define LATENCY_TRACKER_NAME_NET "net"
#define LATENCY_TRACKER_NAME_APP "app"
#define LATENCY_TRACKER_NAME_FS "fs"		/* ABI 1.4 */
#define LATENCY_TRACKER_NAME_IOSCHED "iosched"	/* ABI 1.4 */
#define LATENCY_TRACKER_TRACKER_MODULE_PREFIX "latency_tracker_"

/* Per-tracker files of its own alert limit (ABI 1.3), and the counter of what it refused. */
#define LATENCY_TRACKER_FILE_ALERT_RATE "alert_rate_per_s"
#define LATENCY_TRACKER_FILE_ALERT_BURST "alert_burst"
#define LATENCY_TRACKER_STAT_THROTTLED "throttled"
#define LATENCY_TRACKER_TRACKER_ALERT_BURST 20	/* default alert_burst of a tracker */

/* Keys kept per tracker in hist/by_key (ABI 1.4); further keys count as "other". */
#define LATENCY_TRACKER_HIST_KEYS 64

/* The notification file: a misc device. */
#define LATENCY_TRACKER_DEV_NAME "latency_tracker"
#define LATENCY_TRACKER_DEV_PATH "/dev/latency_tracker"

/* Name of the alert tracepoint (TRACE_SYSTEM:event) as LTTng and ftrace show it. */
#define LATENCY_TRACKER_TRACE_SYSTEM "latency_tracker"
#define LATENCY_TRACKER_TRACE_EVENT "latency_tracker_alert"

#define LATENCY_TRACKER_NAME_LEN 32	/* tracker name, NUL included */
#define LATENCY_TRACKER_COMM_LEN 16	/* TASK_COMM_LEN */
#define LATENCY_TRACKER_DATA_WORDS 4	/* tracker-specific fields */
#define LATENCY_TRACKER_STACK_DEPTH 16	/* kernel stack entries */

#define LATENCY_TRACKER_RECORD_VERSION 1

/* latency_tracker_record.kind */
enum latency_tracker_record_kind {
	LATENCY_TRACKER_REC_ALERT = 1,
	LATENCY_TRACKER_REC_LOST = 2,	/* this reader missed .lost records */
};

/* latency_tracker_record.reason */
enum latency_tracker_reason {
	LATENCY_TRACKER_REASON_NONE = 0,	/* LOST records */
	LATENCY_TRACKER_REASON_THRESHOLD = 1,	/* event_out came, delay >= threshold */
	/* no event_out after timeout_ns, still pending; or, flagged DISCARDED (ABI 1.7), after
	 * stale_ns: discarded, its last record (one that timed out first has two) */
	LATENCY_TRACKER_REASON_TIMEOUT = 2,
};

/* latency_tracker_record.flags */
#define LATENCY_TRACKER_REC_F_TIMED_OUT (1U << 0)	/* closed key had timed out before */
#define LATENCY_TRACKER_REC_F_STACK_IN (1U << 1)	/* stack saved at event_in */
#define LATENCY_TRACKER_REC_F_STACK_ALERT (1U << 2)	/* stack of the alerting context */
/* ABI 1.1: stack of the tracked task, sampled by the tracker while it was blocked */
#define LATENCY_TRACKER_REC_F_STACK_TASK (1U << 3)
/* ABI 1.2: stack of the task that woke the tracked one, taken at sched_waking */
#define LATENCY_TRACKER_REC_F_STACK_WAKER (1U << 4)
/*
 * ABI 1.7: with reason TIMEOUT, the key was discarded as stale (stale_ns) after the
 * threshold: its end will never be matched, this is its last record; delay_ns is how long
 * it had been pending then (end_ns: the discard), a lower bound of its latency.
 */
#define LATENCY_TRACKER_REC_F_DISCARDED (1U << 5)

/*
 * latency_tracker_record.tracker_type: says what data[] holds; unused words are 0.
 * "TEXT in data[i..j]": a string of at most 8 * (j - i + 1) bytes, copied byte for byte
 * (data[] in memory order, as in comm[]) and NUL-padded; not NUL-terminated when full.
 * pid/tid/comm are those of the task the key is about, as said per tracker.
 */
enum latency_tracker_type {
	LATENCY_TRACKER_TYPE_UNKNOWN = 0,
	LATENCY_TRACKER_TYPE_SELFTEST = 1,	/* data[0..3]: as given by the test */
	/*
	 * syscalls: the calling thread. data[0] syscall nr, data[1] return value (s64;
	 * timeout: 0), data[2] how long the call had been pending when its stack was sampled
	 * (ns; 0: no stack), flag STACK_TASK: stack[] is where the task waited in the kernel.
	 */
	LATENCY_TRACKER_TYPE_SYSCALL = 2,
	/*
	 * wakeup (ABI 1.2): the woken thread, from sched_waking to when it runs.
	 * data[0] waker tid (0: woken from an interrupt or the idle task), data[1] target
	 * cpu in bits 0..31 and the woken task's prio in bits 32..63, waker comm in
	 * data[2..3].
	 */
	LATENCY_TRACKER_TYPE_WAKEUP = 3,
	/*
	 * offcpu (ABI 1.2): the blocked thread, from being switched out blocked to being
	 * switched in. data[0] its state when it blocked (TASK_* bits: 1 S, 2 D), data[1]
	 * waker tid (0: not woken yet, e.g. a timeout alert), waker comm in data[2..3];
	 * flag STACK_WAKER: stack[] is the waker's kernel stack at sched_waking.
	 */
	LATENCY_TRACKER_TYPE_OFFCPU = 4,
	/*
	 * block (ABI 1.2): a request from block_rq_issue to block_rq_complete; the task is
	 * the one that issued it (kblockd for plugged I/O). data[0] device (major << 32 |
	 * minor), data[1] first sector (512-byte units from the start of the disk), data[2]
	 * bytes, rwbs ("R", "WS", "RA"... as in block tracepoints) in data[3].
	 */
	LATENCY_TRACKER_TYPE_BLOCK = 5,
	/*
	 * irq (ABI 1.2): a hard interrupt handler or a softirq on one CPU; the task is the
	 * one it interrupted. data[0] irq number or softirq vector, data[1] 0 hard irq,
	 * 1 softirq, handler or softirq name in data[2..3]. ABI 1.3: data[1] 2, a threaded
	 * handler, from its hard part waking the thread to the thread waiting again; the
	 * task is the irq thread, start_cpu/end_cpu where each end was seen.
	 */
	LATENCY_TRACKER_TYPE_IRQ = 6,
	/*
	 * net (ABI 1.2): a received packet from netif_receive_skb to its consumption (read
	 * by the socket owner) or its drop; the task is the one that consumed it. data[0]
	 * ifindex, data[1] protocol (ETH_P_*, host order) in bits 0..15 and the IP protocol
	 * (IPPROTO_*) in bits 16..23, data[2] source port in bits 0..15 and destination
	 * port in bits 16..31 (TCP and UDP, 0 otherwise), data[3] 0 consumed, 1 dropped.
	 * It ends at the first copy to the reader (skb_copy_datagram_iovec), consume_skb or
	 * kfree_skb; pid/tid 0 and an empty comm when it ended outside task context or on a
	 * timeout.
	 */
	LATENCY_TRACKER_TYPE_NET = 7,
	/*
	 * app (ABI 1.2): from "begin COOKIE" to "end COOKIE" written to
	 * LATENCY_TRACKER_APP_PATH; the task is the one that wrote begin. The COOKIE in
	 * data[0..3].
	 */
	LATENCY_TRACKER_TYPE_APP = 8,
	/*
	 * fs (ABI 1.4): a thread's call to vfs_read, vfs_write, vfs_fsync_range, vfs_readv
	 * or vfs_writev, entry to return. data[0] the call (LATENCY_TRACKER_FS_*), data[1]
	 * its return value, data[2] the bytes asked (readv/writev: the iovecs; fsync: 1 for
	 * datasync), data[3] the file's device (major in bits 32..63, minor in 0..31).
	 */
	LATENCY_TRACKER_TYPE_FS = 9,
	/* iosched (ABI 1.4): a request from its insertion into the scheduler to its issue;
	 * the record's type is LATENCY_TRACKER_TYPE_BLOCK, its data words block's. */
};

/* The fs tracker's data[0] (ABI 1.4). */
#define LATENCY_TRACKER_FS_READ 0
#define LATENCY_TRACKER_FS_WRITE 1
#define LATENCY_TRACKER_FS_FSYNC 2
#define LATENCY_TRACKER_FS_READV 3
#define LATENCY_TRACKER_FS_WRITEV 4

/* The app tracker's marker file (ABI 1.2): write "begin COOKIE" or "end COOKIE". */
#define LATENCY_TRACKER_APP_DEV_NAME "latency_tracker_app"
#define LATENCY_TRACKER_APP_PATH "/dev/latency_tracker_app"
#define LATENCY_TRACKER_APP_COOKIE_MAX 32	/* bytes of COOKIE */

/* end_cpu of a timeout: the key is still pending, nothing ended. */
#define LATENCY_TRACKER_CPU_NONE 0xffffffffU

/*
 * One record of the notification file (312 bytes; fixed-width fields, explicit padding,
 * strings are NUL-terminated __u8 arrays). Timestamps are on the clock of LTTng's kernel
 * tracer (ktime_get_mono_fast_ns(), CLOCK_MONOTONIC in nanoseconds), so an alert can be
 * found in a kernel snapshot at [start_ns, end_ns].
 */
struct latency_tracker_record {
	/* Header, common to every kind. */
	__u32 size;		/* sizeof(struct latency_tracker_record) of the writer */
	__u8 version;		/* LATENCY_TRACKER_RECORD_VERSION */
	__u8 kind;		/* enum latency_tracker_record_kind */
	__u8 __pad0[2];
	__u64 seq;		/* ring sequence number (LOST: the first missed one) */

	/* ALERT */
	__u8 tracker[LATENCY_TRACKER_NAME_LEN];	/* tracker name, NUL-terminated */
	__u32 tracker_type;	/* enum latency_tracker_type */
	__u32 reason;		/* enum latency_tracker_reason */
	__u32 flags;		/* LATENCY_TRACKER_REC_F_* */
	__s32 pid;		/* thread group id of the tracked task */
	__s32 tid;		/* thread id of the tracked task */
	__u32 start_cpu;	/* CPU of event_in */
	__u32 end_cpu;		/* CPU of event_out, LATENCY_TRACKER_CPU_NONE on timeout */
	__u32 __pad1;
	__u8 comm[LATENCY_TRACKER_COMM_LEN];	/* task name, NUL-terminated */
	__u64 start_ns;		/* event_in */
	__u64 end_ns;		/* event_out, or when the timeout was detected */
	__u64 delay_ns;		/* end_ns - start_ns */
	__u64 threshold_ns;	/* the tracker's threshold at that time */
	__u64 data[LATENCY_TRACKER_DATA_WORDS];

	/* Accounting. */
	__u64 lost;		/* LOST: records this reader missed; else 0 */
	__u64 suppressed;	/* alerts dropped (rate limit, busy) since the last record */

	/* Optional kernel stack, innermost first. */
	__u32 nr_stack;
	__u32 __pad2;
	__u64 stack[LATENCY_TRACKER_STACK_DEPTH];
};

#define LATENCY_TRACKER_RECORD_SIZE 312

#ifdef __cplusplus
static_assert(sizeof(struct latency_tracker_record) == LATENCY_TRACKER_RECORD_SIZE,
	      "latency_tracker_record size");
#else
_Static_assert(sizeof(struct latency_tracker_record) == LATENCY_TRACKER_RECORD_SIZE,
	       "latency_tracker_record size");
_Static_assert(__builtin_offsetof(struct latency_tracker_record, comm) == 80,
	       "latency_tracker_record layout");
_Static_assert(__builtin_offsetof(struct latency_tracker_record, start_ns) == 96,
	       "latency_tracker_record layout");
_Static_assert(__builtin_offsetof(struct latency_tracker_record, stack) == 184,
	       "latency_tracker_record layout");
#endif

#endif /* _UAPI_LATENCY_TRACKER_H */
