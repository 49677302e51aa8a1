// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker_fs: the "fs" tracker. A call to the VFS's read, write or fsync path is
 * a key (the thread id) from the entry of vfs_read(), vfs_write() or vfs_fsync_range() to
 * its return, seen by a kretprobe on each; one that took at least threshold_ns raises an
 * alert saying which call, what it asked for and what it returned, so that a slow read()
 * or write() is seen at the file system's level, above the block and iosched trackers.
 *
 * What goes through them (fs/read_write.c, fs/sync.c, 6.1 and 6.12): read(2) and
 * pread64(2) go through vfs_read(); write(2) and pwrite64(2) through vfs_write();
 * readv(2), preadv(2) and preadv2(2) through vfs_readv(), their write twins through
 * vfs_writev(); fsync(2), fdatasync(2), msync(MS_SYNC) and the sync of an O_SYNC or
 * O_DSYNC write (generic_write_sync()) through vfs_fsync_range(). vfs_readv() and
 * vfs_writev() are static: Debian's 6.1 and 6.12 keep them as functions, a kernel that
 * inlines them has no such symbol, and the tracker then goes without them (logged).
 * Not seen: io_uring, AIO, splice and sendfile (they call ->read_iter() and
 * ->write_iter() themselves), page faults on mapped files, sync_file_range(2) and
 * syncfs(2).
 *
 * Only regular files and block devices are tracked: a read on a pipe, socket or terminal
 * blocks by design (waiting for its writer) and would alert all the time, as would the
 * blocking read of /dev/latency_tracker by latencyd itself.
 *
 * Nested calls: a thread's calls nest strictly (an O_SYNC vfs_write() calls
 * vfs_fsync_range() before it returns; a stacked file system such as overlayfs may call
 * the VFS again on the lower file), so its keys are a stack: DUP_NEST keeps every level
 * and each return closes the most recent key of the thread, its own. That holds only if
 * every return seen has its entry in the table: the entry handler returns non-zero
 * (no return probe armed for that call) whenever it stores no key (left out, filtered
 * out, table full), so a return never closes its caller's key. An alert is raised for
 * each level over the threshold: the outer one includes the inner one's time.
 *
 * Recursion: the kprobe core never runs a probe from within a kprobe handler on the same
 * CPU (it counts the hit as missed), and the handlers read no file.
 *
 * Missed calls: each probe has LTT_FS_MAXACTIVE instances for calls in flight at once;
 * past that, the kretprobe does not fire (counted in the kprobe's nmissed, not here).
 *
 * Cost: nothing while disabled (no kprobe registered). Enabled: a kprobe and a
 * kretprobe trampoline per call (on x86, an ftrace call at the function's entry), a few
 * loads, one filter check and one table operation at entry and at return.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#include "common.h"

#define LTT_FS_MAXACTIVE 256

/* data[0] of the alert: which path (the uapi's LATENCY_TRACKER_FS_*). */
enum ltt_fs_op {
	LTT_FS_READ = LATENCY_TRACKER_FS_READ,
	LTT_FS_WRITE = LATENCY_TRACKER_FS_WRITE,
	LTT_FS_FSYNC = LATENCY_TRACKER_FS_FSYNC,
	LTT_FS_READV = LATENCY_TRACKER_FS_READV,
	LTT_FS_WRITEV = LATENCY_TRACKER_FS_WRITEV,
};

static struct latency_tracker *ltt_fs;
static struct ltt_filter ltt_fs_filter;

/* The file's device: the disk of a block device node, else its file system's. */
static u64 ltt_fs_dev(const struct inode *inode)
{
	dev_t dev = S_ISBLK(inode->i_mode) ? inode->i_rdev : inode->i_sb->s_dev;

	return (u64)MAJOR(dev) << 32 | MINOR(dev);
}

/*
 * Every probed function takes the file first; read and write the count third, readv and
 * writev the number of iovecs third, fsync datasync fourth. Return: 0 (a key is stored:
 * arm the return probe) or 1 (none).
 */
static int ltt_fs_entry(struct pt_regs *regs, enum ltt_fs_op op)
{
	struct file *file = (struct file *)regs_get_kernel_argument(regs, 0);
	struct latency_tracker_in in = { };
	struct inode *inode;
	u32 key = current->pid;

	if (!file)
		return 1;
	inode = file_inode(file);
	if (!S_ISREG(inode->i_mode) && !S_ISBLK(inode->i_mode))
		return 1;
	if (!ltt_filter_match(&ltt_fs_filter, current))
		return 1;
	in.data[0] = op;
	if (op == LTT_FS_FSYNC)		/* an int: the register's upper half is not part of it */
		in.data[2] = (u32)regs_get_kernel_argument(regs, 3);
	else
		in.data[2] = regs_get_kernel_argument(regs, 2);
	in.data[3] = ltt_fs_dev(inode);
	return latency_tracker_event_in(ltt_fs, &key, sizeof(key), &in) ? 1 : 0;
}

static int ltt_fs_read_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return ltt_fs_entry(regs, LTT_FS_READ);
}

static int ltt_fs_write_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return ltt_fs_entry(regs, LTT_FS_WRITE);
}

static int ltt_fs_fsync_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return ltt_fs_entry(regs, LTT_FS_FSYNC);
}

static int ltt_fs_readv_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return ltt_fs_entry(regs, LTT_FS_READV);
}

static int ltt_fs_writev_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return ltt_fs_entry(regs, LTT_FS_WRITEV);
}

/* Only for a call whose entry stored a key: the thread's most recent key is its own. */
static int ltt_fs_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct latency_tracker_out out = { .data_mask = BIT(1) };
	u32 key = current->pid;

	out.data[1] = (s64)regs_return_value(regs);
	latency_tracker_event_out(ltt_fs, &key, sizeof(key), &out);
	return 0;
}

struct ltt_fs_probe {
	const char *symbol;
	kretprobe_handler_t entry;
	bool optional;		/* static: may be inlined away */
};

static const struct ltt_fs_probe ltt_fs_probe_defs[] = {
	{ "vfs_read", ltt_fs_read_entry, false },
	{ "vfs_write", ltt_fs_write_entry, false },
	{ "vfs_fsync_range", ltt_fs_fsync_entry, false },
	{ "vfs_readv", ltt_fs_readv_entry, true },
	{ "vfs_writev", ltt_fs_writev_entry, true },
};

static struct kretprobe ltt_fs_rp[ARRAY_SIZE(ltt_fs_probe_defs)];
/* The registered ones, under the tracker's lock (its activate and deactivate). */
static struct kretprobe *ltt_fs_on[ARRAY_SIZE(ltt_fs_probe_defs)];
static unsigned int ltt_fs_n_on;

/* Waits for running handlers; a call in flight then returns without ours. */
static void ltt_fs_deactivate(struct latency_tracker *t)
{
	if (ltt_fs_n_on)
		unregister_kretprobes(ltt_fs_on, ltt_fs_n_on);
	ltt_fs_n_on = 0;
}

/*
 * Each probe is filled again before its registration: a registered kprobe keeps its
 * resolved address and flags, and one given both an address and a symbol is refused.
 * Return: 0, or the error of a required probe (none is left registered).
 */
static int ltt_fs_activate(struct latency_tracker *t)
{
	const struct ltt_fs_probe *d;
	struct kretprobe *rp;
	unsigned int i;
	int ret;

	ltt_fs_n_on = 0;
	for (i = 0; i < ARRAY_SIZE(ltt_fs_rp); i++) {
		d = &ltt_fs_probe_defs[i];
		rp = &ltt_fs_rp[i];
		memset(rp, 0, sizeof(*rp));
		rp->kp.symbol_name = d->symbol;
		rp->entry_handler = d->entry;
		rp->handler = ltt_fs_return;
		rp->maxactive = LTT_FS_MAXACTIVE;
		ret = register_kretprobe(rp);
		if (!ret) {
			ltt_fs_on[ltt_fs_n_on++] = rp;
			continue;
		}
		if (!d->optional) {
			pr_err("cannot probe %s: %d\n", d->symbol, ret);
			ltt_fs_deactivate(t);
			return ret;
		}
		pr_notice("cannot probe %s (%d): its calls are not tracked\n", d->symbol, ret);
	}
	return 0;
}

static bool ltt_fs_cb(struct latency_tracker *t, struct latency_tracker_record *rec,
		      void *priv)
{
	if (rec->reason == LATENCY_TRACKER_REASON_TIMEOUT)
		rec->data[1] = 0;
	return true;
}

/*
 * The uapi header has no type of its own for this tracker yet: readers go by its name,
 * "fs", and the data words of latency_tracker(4).
 */
static const struct latency_tracker_params ltt_fs_params = {
	.name = "fs",
	.type = LATENCY_TRACKER_TYPE_FS,
	.key_size = sizeof(u32),
	.dup_policy = LATENCY_TRACKER_DUP_NEST,
	.stack_mode = LATENCY_TRACKER_STACK_NONE,
	.stale_alert = true, /* filtered at the start alone: every end is seen */
	.cb = ltt_fs_cb,
	.activate = ltt_fs_activate,
	.deactivate = ltt_fs_deactivate,
};

static int __init ltt_fs_init(void)
{
	ltt_fs = ltt_tracker_create(&ltt_fs_params, NULL, 0, &ltt_fs_filter);
	return PTR_ERR_OR_ZERO(ltt_fs);
}

static void __exit ltt_fs_exit(void)
{
	ltt_tracker_destroy(ltt_fs, &ltt_fs_filter);
}

module_init(ltt_fs_init);
module_exit(ltt_fs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("latency_tracker: VFS read, write and fsync calls, by thread");
