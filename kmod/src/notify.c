// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency_tracker: the notification file /dev/latency_tracker (a misc device: works
 * under lockdown, needs no debugfs). Semantics are documented in the uapi header.
 *
 * One ring of fixed-size records shared by all readers, overwritten oldest first. The
 * ring head is a 64-bit sequence number that never wraps; each open file keeps its own
 * position in that sequence, so readers are independent and a reader that fell behind
 * knows exactly how many records it lost (head - ring size - its position).
 *
 * Producers run in any context (alerts are raised from tracepoints, including inside
 * the scheduler): they copy the record in under a raw spinlock with interrupts off and
 * then queue the alerting CPU's irq_work; the irq_work wakes the readers, never the
 * producer itself, so raising an alert from sched_switch cannot deadlock on the runqueue
 * lock. Readers copy records out under the same lock into a per-file buffer, then to user
 * space.
 *
 * Each open file has a waitqueue per CPU besides its own: a thread pinned to one CPU
 * waits on that CPU's. An alert wakes, in each open file, the threads waiting on the
 * alerting CPU's queue; when none waits there, every thread of that file. A reader that
 * keeps one thread per CPU is thus woken on the CPU that is already running (no
 * interprocessor interrupt, no idle CPU to bring out of its sleep state: the cost that
 * makes an idle machine slower to react than a busy one), and a busy one still has
 * another take the alert. Unless the alerting CPU runs a realtime task, which may keep
 * the thread pinned there from running for as long as it runs (the culprit of the
 * latency, often): then every thread is woken, and on PREEMPT_RT the wakeup itself runs
 * on another CPU, by an unbound worker (see lt_ring_wake_hard()).
 *
 * Two token buckets bound the records per second: the alerting tracker's own (its
 * alert_rate_per_s, alert_burst; none when its rate is 0), checked first, so that one
 * noisy tracker spends its own budget and cannot drain the ring's for the others, then
 * the global one (the root's alert_rate_per_s, alert_burst), the overall cap. A record
 * takes a token from both or from neither. What they refuse, and what an NMI could not
 * add while the ring was busy on its CPU, is counted and reported in the next record's
 * .suppressed.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "internal.h"

/* Records copied per read() call at most (about 5 KiB of bounce buffer per open file). */
#define LT_READ_BATCH 16

struct lt_ring {
	raw_spinlock_t lock;
	u64 head;			/* sequence number of the next record */
	u32 mask;
	struct latency_tracker_record *slots;
	struct lt_token_bucket tb;	/* the global limit */
	u64 written;
	u64 suppressed;
	atomic64_t dropped;		/* LT_PUSH_BUSY, counted outside the lock */
	atomic64_t unreported;		/* refused since the last record */
};

struct lt_reader {
	struct mutex lock;		/* serialises readers of one open file */
	u64 pos;			/* sequence number of the next record to read */
	struct list_head node;		/* in lt_readers, under RCU */
	wait_queue_head_t wq;		/* threads not pinned to one CPU */
	wait_queue_head_t __percpu *cpu_wq; /* threads pinned to that CPU */
	cpumask_var_t cpu_wq_used;	/* the CPUs whose cpu_wq a thread ever chose */
	struct rcu_head rcu;
	struct latency_tracker_record buf[LT_READ_BATCH];
};

static struct lt_ring lt_ring;
static DEFINE_PER_CPU(struct irq_work, lt_wake_work);
/*
 * PREEMPT_RT: a hard irq_work chooses (lt_ring_wake_hard()) between lt_wake_work and, the
 * CPU held by a realtime task, a worker of lt_wake_wq (unbound: placed on a CPU free to run
 * it) that wakes every thread.
 */
static DEFINE_PER_CPU(struct irq_work, lt_wake_hard_work);
static DEFINE_PER_CPU(struct work_struct, lt_wake_away_work);
static struct workqueue_struct *lt_wake_wq;
/* The open files, walked by the wakeup (interrupt context) under RCU. */
static LIST_HEAD(lt_readers);
static DEFINE_MUTEX(lt_readers_lock);

/*
 * Every holder of the ring lock is inside lt_enter() with interrupts off, so an NMI
 * that raises an alert on a CPU holding the lock backs off instead of deadlocking.
 * Fails only in that nested case.
 */
static bool lt_ring_lock(unsigned long *flags)
{
	local_irq_save(*flags);
	if (!lt_enter()) {
		local_irq_restore(*flags);
		return false;
	}
	raw_spin_lock(&lt_ring.lock);
	return true;
}

static void lt_ring_unlock(unsigned long flags)
{
	raw_spin_unlock(&lt_ring.lock);
	lt_exit();
	local_irq_restore(flags);
}

/* The header every record of the notification file starts with, alerts and LOST alike. */
void lt_record_init(struct latency_tracker_record *rec, u8 kind)
{
	memset(rec, 0, sizeof(*rec));
	rec->size = sizeof(*rec);
	rec->version = LATENCY_TRACKER_RECORD_VERSION;
	rec->kind = kind;
}

static u64 lt_ring_tail(const struct lt_ring *r)
{
	u64 size = r->mask + 1ULL;

	return r->head > size ? r->head - size : 0;
}

/*
 * Ring lock held. Refills @b for @now and says whether it holds one record's worth of
 * credit, that cost in *@cost: each record costs NSEC_PER_SEC / rate, up to burst records.
 */
static bool lt_tb_ready(struct lt_token_bucket *b, u64 rate, u64 burst, u64 now, u64 *cost)
{
	u64 c = NSEC_PER_SEC / max_t(u64, rate, 1);
	u64 cap = c * burst;

	if (now > b->last_ns) {
		b->credit_ns = min(cap, b->credit_ns + (now - b->last_ns));
		b->last_ns = now;
	}
	b->credit_ns = min(b->credit_ns, cap);
	*cost = c;
	return b->credit_ns >= c;
}

enum lt_push_result lt_notify_push(struct latency_tracker_record *rec,
				   struct lt_alert_limit *own)
{
	struct lt_ring *r = &lt_ring;
	enum lt_push_result res = LT_PUSH_OK;
	u64 now, own_rate, own_cost = 0, cost;
	unsigned long flags;

	if (!lt_ring_lock(&flags)) {
		atomic64_inc(&r->dropped);
		atomic64_inc(&r->unreported);
		return LT_PUSH_BUSY;
	}
	now = lt_clock_ns();
	own_rate = own ? READ_ONCE(own->rate) : 0;
	if (own_rate && !lt_tb_ready(&own->tb, own_rate, READ_ONCE(own->burst), now, &own_cost))
		res = LT_PUSH_THROTTLED;
	else if (!lt_tb_ready(&r->tb, READ_ONCE(lt_defaults.alert_rate),
			      READ_ONCE(lt_defaults.alert_burst), now, &cost))
		res = LT_PUSH_SUPPRESSED;
	if (res != LT_PUSH_OK) {
		r->suppressed++;
		atomic64_inc(&r->unreported);
	} else {
		r->tb.credit_ns -= cost;
		if (own_rate)
			own->tb.credit_ns -= own_cost;
		rec->seq = r->head;
		rec->suppressed = atomic64_xchg(&r->unreported, 0);
		memcpy(&r->slots[r->head & r->mask], rec, sizeof(*rec));
		WRITE_ONCE(r->head, r->head + 1);
		r->written++;
	}
	lt_ring_unlock(flags);
	return res;
}

/*
 * Wakes the readers after a successful lt_notify_push(). Separate so that the caller
 * emits the alert tracepoint first: the irq_work may run as soon as interrupts are on,
 * and a trace snapshot taken by a woken reader must already hold the alert event.
 */
void lt_notify_wake(void)
{
	int cpu = get_cpu();

	/*
	 * Who holds this CPU is read in hard interrupt context, once the alerting code is done:
	 * an alert raised in sched_switch leaves the task switched in running, not the one the
	 * probe saw as current.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		irq_work_queue(per_cpu_ptr(&lt_wake_hard_work, cpu));
	else
		irq_work_queue(per_cpu_ptr(&lt_wake_work, cpu));
	put_cpu();
}

/*
 * Hard interrupt context: whether the task on this CPU, a realtime or deadline one or one
 * boosted to that, may hold off a reader's thread pinned here. Its priority against the
 * reader's is not known here, so any counts.
 */
static bool lt_cpu_held(void)
{
	return current->prio < MAX_RT_PRIO && !is_idle_task(current);
}

void lt_notify_stats(struct lt_notify_stats *st)
{
	st->written = READ_ONCE(lt_ring.written);
	st->suppressed = READ_ONCE(lt_ring.suppressed);
	st->dropped = atomic64_read(&lt_ring.dropped);
}

static void lt_wake_queue(wait_queue_head_t *wq)
{
	if (waitqueue_active(wq))
		wake_up_interruptible_all(wq);
}

/*
 * Hard interrupt context on !PREEMPT_RT, the irq_work thread on PREEMPT_RT: there the
 * waitqueue's spinlock_t sleeps, so the wakeup cannot be made hard (IRQ_WORK_HARD_IRQ),
 * and poll() needs a waitqueue. The irq_work thread of the alerting CPU runs at
 * SCHED_FIFO 1: a higher-priority task running there delays the reader's wakeup until it
 * yields (bench/kernels-results.md measures it), unless it is a realtime one, which
 * lt_ring_wake_hard() sees: then a worker elsewhere wakes them. HERE: the CPU whose queues
 * come first, -1 for none (every thread woken).
 */
static void lt_ring_wake_from(int here)
{
	struct lt_reader *rd;
	int cpu;

	/*
	 * Pairs with the barrier in a reader's wait (set_current_state(), poll's): the record
	 * is in the ring before the queues are looked at without their locks, so a reader is
	 * either seen waiting or sees the record.
	 */
	smp_mb();
	rcu_read_lock();
	list_for_each_entry_rcu(rd, &lt_readers, node) {
		wait_queue_head_t *local = here >= 0 ? per_cpu_ptr(rd->cpu_wq, here) : NULL;

		lt_wake_queue(&rd->wq);
		if (local && waitqueue_active(local)) {
			wake_up_interruptible_all(local);
			continue;
		}
		/*
		 * Only the queues some thread chose: with interrupts off, each other queue
		 * looked at is a remote cache line, and a reader with no pinned thread (the
		 * common one) has none. The bit is set before the thread queues itself and
		 * reads the ring: our barrier above makes us see it, or it the record.
		 */
		for_each_cpu(cpu, rd->cpu_wq_used)
			lt_wake_queue(per_cpu_ptr(rd->cpu_wq, cpu));
	}
	rcu_read_unlock();
}

/* The thread of each file pinned to this CPU, or every thread when it is held. */
static void lt_ring_wake(struct irq_work *w)
{
	/* PREEMPT_RT: current is the irq_work thread; lt_ring_wake_hard() chose already. */
	bool all = !IS_ENABLED(CONFIG_PREEMPT_RT) && lt_cpu_held();

	lt_ring_wake_from(all ? -1 : smp_processor_id());
}

/*
 * PREEMPT_RT, hard interrupt context: a realtime task here would hold off this CPU's
 * irq_work thread (SCHED_FIFO 1) and its pinned readers alike; the wakeup of every thread
 * goes to an unbound worker then, which the scheduler places on a CPU that can run it.
 */
static void lt_ring_wake_hard(struct irq_work *w)
{
	if (lt_cpu_held() && num_online_cpus() > 1)
		queue_work(lt_wake_wq, this_cpu_ptr(&lt_wake_away_work));
	else
		irq_work_queue(this_cpu_ptr(&lt_wake_work));
}

static void lt_ring_wake_away(struct work_struct *w)
{
	lt_ring_wake_from(-1);
}

/* Where the calling thread waits: its CPU's queue when it may run on that one alone. */
static wait_queue_head_t *lt_reader_wq(struct lt_reader *rd)
{
	int cpu;

	if (current->nr_cpus_allowed != 1)
		return &rd->wq;
	cpu = cpumask_first(current->cpus_ptr);
	/* Never cleared: a thread may still wait there. Tested first: no store per wait. */
	if (!cpumask_test_cpu(cpu, rd->cpu_wq_used))
		cpumask_set_cpu(cpu, rd->cpu_wq_used);
	return per_cpu_ptr(rd->cpu_wq, cpu);
}

static bool lt_reader_pending(struct lt_reader *rd)
{
	return READ_ONCE(lt_ring.head) != READ_ONCE(rd->pos);
}

/*
 * Copies up to max records for this reader into rd->buf, a LOST record first if it
 * fell behind. Process context, rd->lock held. Returns the number of records.
 */
static unsigned int lt_reader_fetch(struct lt_reader *rd, unsigned int max)
{
	struct lt_ring *r = &lt_ring;
	unsigned int n = 0;
	unsigned long flags;
	u64 tail;

	if (!lt_ring_lock(&flags))	/* cannot fail in process context */
		return 0;
	tail = lt_ring_tail(r);
	if (rd->pos < tail) {
		struct latency_tracker_record *lost = &rd->buf[n++];

		lt_record_init(lost, LATENCY_TRACKER_REC_LOST);
		lost->seq = rd->pos;
		lost->lost = tail - rd->pos;
		WRITE_ONCE(rd->pos, tail);
	}
	while (n < max && rd->pos < r->head) {
		memcpy(&rd->buf[n++], &r->slots[rd->pos & r->mask], sizeof(rd->buf[0]));
		WRITE_ONCE(rd->pos, rd->pos + 1);
	}
	lt_ring_unlock(flags);
	return n;
}

static u64 lt_ring_position(bool newest)
{
	unsigned long flags;
	u64 pos = 0;

	if (lt_ring_lock(&flags)) {
		pos = newest ? lt_ring.head : lt_ring_tail(&lt_ring);
		lt_ring_unlock(flags);
	}
	return pos;
}

static int lt_open(struct inode *inode, struct file *file)
{
	struct lt_reader *rd;
	int cpu;

	rd = kvzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	rd->cpu_wq = alloc_percpu(wait_queue_head_t);
	if (!rd->cpu_wq || !zalloc_cpumask_var(&rd->cpu_wq_used, GFP_KERNEL)) {
		free_percpu(rd->cpu_wq);
		kvfree(rd);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		init_waitqueue_head(per_cpu_ptr(rd->cpu_wq, cpu));
	init_waitqueue_head(&rd->wq);
	mutex_init(&rd->lock);
	rd->pos = lt_ring_position(false);
	file->private_data = rd;
	mutex_lock(&lt_readers_lock);
	list_add_tail_rcu(&rd->node, &lt_readers);
	mutex_unlock(&lt_readers_lock);
	lt_live_get();
	return 0;
}

static void lt_reader_free(struct rcu_head *head)
{
	struct lt_reader *rd = container_of(head, struct lt_reader, rcu);

	free_cpumask_var(rd->cpu_wq_used);
	free_percpu(rd->cpu_wq);
	kvfree(rd);
}

static int lt_release(struct inode *inode, struct file *file)
{
	struct lt_reader *rd = file->private_data;

	mutex_lock(&lt_readers_lock);
	list_del_rcu(&rd->node);
	mutex_unlock(&lt_readers_lock);
	/* A wakeup may still be walking past it; nothing waits on it any more. */
	call_rcu(&rd->rcu, lt_reader_free);
	lt_live_put();
	return 0;
}

static ssize_t lt_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct lt_reader *rd = file->private_data;
	size_t rsize = sizeof(struct latency_tracker_record);
	wait_queue_head_t *wq;
	unsigned int max, n;
	u64 saved;
	ssize_t ret;

	if (count < rsize)
		return -EINVAL;
	max = min_t(size_t, count / rsize, LT_READ_BATCH);

	/*
	 * rd->lock is not held while waiting: a reader of an idle ring would otherwise keep
	 * lseek() and the file's other readers waiting for as long as the ring stays idle.
	 */
	for (;;) {
		if (mutex_lock_interruptible(&rd->lock))
			return -ERESTARTSYS;
		saved = rd->pos;
		n = lt_reader_fetch(rd, max);
		if (n)
			break;
		mutex_unlock(&rd->lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/*
		 * One queue for the whole wait: wait_event_interruptible() evaluates its queue
		 * at every prepare and at the finish, and a thread whose affinity changes while
		 * it sleeps (sched_setaffinity(), a cpuset, its CPU going offline) would then
		 * unlink its entry from one queue under another queue's lock, racing with
		 * lt_ring_wake() on the first.
		 */
		wq = lt_reader_wq(rd);
		ret = wait_event_interruptible(*wq, lt_reader_pending(rd));
		if (ret)
			return ret;
	}
	if (copy_to_user(ubuf, rd->buf, n * rsize)) {
		WRITE_ONCE(rd->pos, saved);	/* nothing consumed */
		ret = -EFAULT;
	} else {
		ret = n * rsize;
	}
	mutex_unlock(&rd->lock);
	return ret;
}

static __poll_t lt_poll(struct file *file, struct poll_table_struct *wait)
{
	struct lt_reader *rd = file->private_data;

	/*
	 * poll() and select() come here at each wait, epoll once at EPOLL_CTL_ADD and keeps
	 * the queue chosen then: its per-CPU routing is that of the registering thread (see
	 * the uapi header). Which one calls is not known here.
	 */
	poll_wait(file, lt_reader_wq(rd), wait);
	/* Queued before the ring is read: pairs with the barrier in lt_ring_wake(). */
	smp_mb();
	return lt_reader_pending(rd) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* Only lseek(fd, 0, SEEK_SET) (oldest record kept) and lseek(fd, 0, SEEK_END) (newest). */
static loff_t lt_llseek(struct file *file, loff_t offset, int whence)
{
	struct lt_reader *rd = file->private_data;

	if (offset != 0 || (whence != SEEK_SET && whence != SEEK_END))
		return -EINVAL;
	/* A read may hold the lock across a copy_to_user() that faults and sleeps. */
	if (mutex_lock_interruptible(&rd->lock))
		return -ERESTARTSYS;
	WRITE_ONCE(rd->pos, lt_ring_position(whence == SEEK_END));
	mutex_unlock(&rd->lock);
	return 0;
}

static const struct file_operations lt_fops = {
	.owner = THIS_MODULE,
	.open = lt_open,
	.release = lt_release,
	.read = lt_read,
	.poll = lt_poll,
	.llseek = lt_llseek,
};

static struct miscdevice lt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = LATENCY_TRACKER_DEV_NAME,
	.fops = &lt_fops,
	.mode = 0600,
};

int lt_notify_init(unsigned int ring_records)
{
	struct lt_ring *r = &lt_ring;
	int cpu;

	raw_spin_lock_init(&r->lock);
	lt_wake_wq = alloc_workqueue("latency_tracker_wake", WQ_UNBOUND | WQ_HIGHPRI, 0);
	if (!lt_wake_wq)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		init_irq_work(per_cpu_ptr(&lt_wake_work, cpu), lt_ring_wake);
		*per_cpu_ptr(&lt_wake_hard_work, cpu) = IRQ_WORK_INIT_HARD(lt_ring_wake_hard);
		INIT_WORK(per_cpu_ptr(&lt_wake_away_work, cpu), lt_ring_wake_away);
	}
	atomic64_set(&r->dropped, 0);
	atomic64_set(&r->unreported, 0);
	r->head = 0;
	r->written = 0;
	r->suppressed = 0;
	r->mask = ring_records - 1;
	r->tb.last_ns = lt_clock_ns();
	r->tb.credit_ns = (NSEC_PER_SEC / max_t(u64, lt_defaults.alert_rate, 1)) *
			  lt_defaults.alert_burst;
	r->slots = vzalloc(array_size(ring_records, sizeof(*r->slots)));
	if (!r->slots) {
		destroy_workqueue(lt_wake_wq);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The device, made last: a file opened on it pins the module only once init has
 * succeeded; a failed init frees the module whatever files are open.
 */
int lt_notify_register(void)
{
	return misc_register(&lt_misc);
}

void lt_notify_unregister(void)
{
	misc_deregister(&lt_misc);
}

/* No open file can remain (fops.owner pins the module) and no tracker is left. */
void lt_notify_exit(void)
{
	int cpu;

	/* The hard irq_work queues the two others: synced first. */
	for_each_possible_cpu(cpu) {
		irq_work_sync(per_cpu_ptr(&lt_wake_hard_work, cpu));
		irq_work_sync(per_cpu_ptr(&lt_wake_work, cpu));
		cancel_work_sync(per_cpu_ptr(&lt_wake_away_work, cpu));
	}
	destroy_workqueue(lt_wake_wq);
	/* The last files' lt_reader_free(): before the module's text goes. */
	rcu_barrier();
	vfree(lt_ring.slots);
	lt_ring.slots = NULL;
}
