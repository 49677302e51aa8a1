/*
 * lt-alerts: reads alerts back from /dev/latency_tracker as latencyd will, and checks the
 * notification file's contract: poll/epoll readiness, blocking and O_NONBLOCK reads, whole
 * records per read, independent readers, timeouts, rate-limit accounting (.suppressed),
 * the LOST record of a reader that fell behind and the wakeup of threads pinned to CPUs,
 * also when a realtime task holds the alerting CPU.
 * Needs latency_tracker and latency_tracker_selftest loaded; alerts are raised through the
 * self-test's emit file.
 * Prints PASS/FAIL lines; exits 0 when everything passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "latency_tracker.h"
#include "lt-progs.h"

#define SYS_DIR	    "/sys/" LATENCY_TRACKER_SYSFS_DIR
#define ST_DIR	    "/sys/kernel/latency_tracker_selftest"
#define TRACKER_DIR SYS_DIR "/selftest"
#define RSIZE	    sizeof(struct latency_tracker_record)
#define MAXREC	    64

_Static_assert(sizeof(struct latency_tracker_record) == LATENCY_TRACKER_RECORD_SIZE, "record size");

static struct latency_tracker_record recs[MAXREC];
static char comm[16];
static long ncpus;
static uint64_t last_seq;
static int have_seq;

static void pass(const char *what)
{
	printf("PASS: %s\n", what);
	fflush(stdout);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static void must_write(const char *path, const char *val)
{
	int err = write_file(path, val);

	if (err)
		fail("write '%s' to %s: %s", val, path, strerror(-err));
}

static uint64_t read_u64(const char *path)
{
	unsigned long long v;
	FILE *f = fopen(path, "r");

	if (!f)
		fail("open %s: %s", path, strerror(errno));
	if (fscanf(f, "%llu", &v) != 1)
		fail("parse %s", path);
	fclose(f);
	return v;
}

static void emit(const char *cmd)
{
	must_write(ST_DIR "/emit", cmd);
}

static int open_dev(int flags)
{
	int fd = open(LATENCY_TRACKER_DEV_PATH, O_RDONLY | flags);

	if (fd < 0)
		fail("open %s: %s", LATENCY_TRACKER_DEV_PATH, strerror(errno));
	if (lseek(fd, 0, SEEK_END) < 0)
		fail("lseek SEEK_END: %s", strerror(errno));
	return fd;
}

/* Reads once; checks that only whole records came. Returns the number of records. */
static int read_recs(int fd, size_t max)
{
	ssize_t n = read(fd, recs, max * RSIZE);

	if (n < 0)
		return -errno;
	if (n == 0 || n % RSIZE)
		fail("read returned %zd bytes, not a whole number of %zu-byte records", n, RSIZE);
	return (int)(n / RSIZE);
}

/* Reads everything pending without blocking, whatever the file's mode. */
static int drain(int fd)
{
	int n, total = 0, flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK))
		fail("fcntl: %s", strerror(errno));
	while ((n = read_recs(fd, MAXREC)) > 0)
		total += n;
	if (n != -EAGAIN)
		fail("drain: %s", strerror(-n));
	if (fcntl(fd, F_SETFL, flags))
		fail("fcntl: %s", strerror(errno));
	return total;
}

static short poll_in(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n = poll(&p, 1, timeout_ms);

	if (n < 0)
		fail("poll: %s", strerror(errno));
	return n ? p.revents : 0;
}

static void check_header(const struct latency_tracker_record *r, uint8_t kind)
{
	if (r->size != RSIZE || r->version != LATENCY_TRACKER_RECORD_VERSION)
		fail("record size %u version %u", r->size, r->version);
	if (r->kind != kind)
		fail("record kind %u, expected %u", r->kind, kind);
	if (have_seq && r->seq != last_seq + 1 && kind == LATENCY_TRACKER_REC_ALERT)
		fail("seq %" PRIu64 " after %" PRIu64, (uint64_t)r->seq, last_seq);
	if (kind == LATENCY_TRACKER_REC_ALERT) {
		last_seq = r->seq;
		have_seq = 1;
	}
}

/* An alert raised by "emit threshold n" from this process, between t0 and t1. */
static void check_threshold(const struct latency_tracker_record *r, unsigned int i, unsigned int n,
			    uint64_t t0, uint64_t t1)
{
	uint64_t thr = read_u64(TRACKER_DIR "/threshold_ns");

	check_header(r, LATENCY_TRACKER_REC_ALERT);
	if (strcmp((const char *)r->tracker, "selftest") ||
	    r->tracker_type != LATENCY_TRACKER_TYPE_SELFTEST)
		fail("tracker '%.32s' type %u", (const char *)r->tracker, r->tracker_type);
	if (r->reason != LATENCY_TRACKER_REASON_THRESHOLD)
		fail("reason %u", r->reason);
	if (r->pid != getpid() || r->tid != (pid_t)syscall(SYS_gettid))
		fail("pid %d tid %d, expected %d", r->pid, r->tid, getpid());
	if (strncmp((const char *)r->comm, comm, sizeof(r->comm)))
		fail("comm '%.16s', expected '%s'", (const char *)r->comm, comm);
	if (r->start_cpu >= (uint32_t)ncpus || r->end_cpu >= (uint32_t)ncpus)
		fail("cpus %u %u", r->start_cpu, r->end_cpu);
	if (r->end_ns - r->start_ns != r->delay_ns || r->delay_ns < 2000000000ULL ||
	    r->delay_ns < thr || r->threshold_ns != thr)
		fail("start %" PRIu64 " end %" PRIu64 " delay %" PRIu64 " threshold %" PRIu64,
		     (uint64_t)r->start_ns, (uint64_t)r->end_ns, (uint64_t)r->delay_ns,
		     (uint64_t)r->threshold_ns);
	/* The trace clock is CLOCK_MONOTONIC: the alert ended while emit ran. */
	if (r->end_ns < t0 || r->end_ns > t1)
		fail("end_ns %" PRIu64 " outside [%" PRIu64 ", %" PRIu64 "]", (uint64_t)r->end_ns,
		     t0, t1);
	if (r->data[0] != i || r->data[1] != 0xfeed || r->data[2] != n || r->data[3] != 0)
		fail("data %" PRIu64 " %" PRIx64 " %" PRIu64 " %" PRIu64 ", expected %u feed %u 0",
		     (uint64_t)r->data[0], (uint64_t)r->data[1], (uint64_t)r->data[2],
		     (uint64_t)r->data[3], i, n);
	if (!(r->flags & LATENCY_TRACKER_REC_F_STACK_ALERT) || r->nr_stack == 0 ||
	    r->nr_stack > LATENCY_TRACKER_STACK_DEPTH)
		fail("flags %#x nr_stack %u", r->flags, r->nr_stack);
	if (r->lost != 0)
		fail("lost %" PRIu64 " in an alert", (uint64_t)r->lost);
}

static void test_empty(int a)
{
	int n;

	if (poll_in(a, 0))
		fail("POLLIN with nothing to read");
	n = read_recs(a, MAXREC);
	if (n != -EAGAIN)
		fail("O_NONBLOCK read with nothing to read gave %d, expected -EAGAIN", n);
	if (read(a, recs, RSIZE - 1) >= 0 || errno != EINVAL)
		fail("read of less than one record did not fail with EINVAL");
	if (lseek(a, 5, SEEK_SET) >= 0 || errno != EINVAL)
		fail("lseek to 5 did not fail with EINVAL");
	pass("empty: no POLLIN, EAGAIN, EINVAL for a short buffer or a bad seek");
}

static void test_threshold(int a, int b)
{
	uint64_t t0, t1, first;
	int n, i;

	t0 = now_ns();
	emit("threshold 5");
	t1 = now_ns();
	if (!(poll_in(a, 2000) & POLLIN))
		fail("no POLLIN after 5 alerts");
	n = read_recs(a, MAXREC);
	if (n != 5)
		fail("read %d records, expected 5", n);
	have_seq = 0;
	for (i = 0; i < n; i++)
		check_threshold(&recs[i], i, 5, t0, t1);
	first = recs[0].seq;
	if (poll_in(a, 0))
		fail("POLLIN after everything was read");
	pass("5 threshold alerts: poll, one read, every field checked");

	/* A second reader sees the same records: nothing was taken from it. */
	n = read_recs(b, MAXREC);
	if (n != 5 || recs[0].seq != first)
		fail("second reader got %d records from seq %" PRIu64, n, (uint64_t)recs[0].seq);
	pass("a second open file reads the same 5 records");
}

static void test_partial(int a, int b)
{
	int n;

	emit("threshold 2");
	n = (int)read(a, recs, RSIZE + RSIZE / 2);
	if (n != (int)RSIZE)
		fail("read with 1.5 records of room returned %d bytes", n);
	if (read_recs(a, 1) != 1)
		fail("second record missing");
	if (read_recs(a, 1) != -EAGAIN)
		fail("a third record appeared");
	drain(b);
	pass("whole records only: 1.5 records of room gives one record");
}

/*
 * A child blocks in read() on its own open file; the parent raises alerts with cmd. The
 * child must wake up with a record whose data[0] is data0.
 */
static void blocked_reader(const char *cmd, uint64_t data0)
{
	int pfd[2], status;
	pid_t pid;
	char c;

	if (pipe(pfd))
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		int fd = open_dev(0);

		alarm(20);
		if (write(pfd[1], "x", 1) != 1)
			_exit(2);
		if (read_recs(fd, MAXREC) < 1 || recs[0].data[0] != data0)
			_exit(1);
		_exit(0);
	}
	if (read(pfd[0], &c, 1) != 1)
		fail("child did not start");
	usleep(300000);
	emit(cmd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("blocking reader woken by '%s': status %#x", cmd, status);
	close(pfd[0]);
	close(pfd[1]);
}

static void test_blocking(int a, int b)
{
	blocked_reader("threshold 1", 0);
	drain(a);
	drain(b);
	pass("a blocking read sleeps until an alert comes");
}

/* Alerts raised inside sched_switch, runqueue lock held, still wake a blocked reader. */
static void test_sched(int a, int b)
{
	int n, i, got = 0;

	blocked_reader("sched 20", 0xc0ffee);
	while ((n = read_recs(a, MAXREC)) > 0) {
		for (i = 0; i < n; i++) {
			if (recs[i].data[0] != 0xc0ffee ||
			    recs[i].reason != LATENCY_TRACKER_REASON_THRESHOLD)
				fail("sched alert: data0 %" PRIx64 " reason %u",
				     (uint64_t)recs[i].data[0], recs[i].reason);
			got++;
		}
	}
	if (got != 20)
		fail("%d alerts from sched_switch, expected 20", got);
	drain(b);
	pass("20 alerts raised inside sched_switch woke a blocked reader (irq_work)");
}

static void test_epoll(int a, int b)
{
	struct epoll_event ev = {.events = EPOLLIN}, out;
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev))
		fail("epoll setup: %s", strerror(errno));
	if (epoll_wait(ep, &out, 1, 0) != 0)
		fail("epoll ready with nothing to read");
	emit("threshold 1");
	if (epoll_wait(ep, &out, 1, 2000) != 1 || !(out.events & EPOLLIN))
		fail("epoll not ready after an alert");
	if (read_recs(a, MAXREC) != 1)
		fail("epoll: read");
	if (epoll_wait(ep, &out, 1, 0) != 0)
		fail("epoll still ready after the read");
	close(ep);
	drain(b);
	pass("epoll: EPOLLIN exactly while records are pending");
}

static void test_timeout(int a, int b)
{
	const struct latency_tracker_record *r = &recs[0];

	must_write(TRACKER_DIR "/timeout_ns", "50000000");
	have_seq = 0;
	emit("timeout");
	if (!(poll_in(a, 3000) & POLLIN))
		fail("no timeout alert within 3 s");
	if (read_recs(a, MAXREC) != 1)
		fail("timeout: read");
	check_header(r, LATENCY_TRACKER_REC_ALERT);
	if (r->reason != LATENCY_TRACKER_REASON_TIMEOUT || r->end_cpu != LATENCY_TRACKER_CPU_NONE ||
	    r->delay_ns < 50000000ULL || r->pid != getpid())
		fail("timeout record: reason %u end_cpu %u delay %" PRIu64, r->reason, r->end_cpu,
		     (uint64_t)r->delay_ns);
	emit("close");
	if (read_recs(a, MAXREC) != 1)
		fail("close: read");
	if (r->reason != LATENCY_TRACKER_REASON_THRESHOLD ||
	    !(r->flags & LATENCY_TRACKER_REC_F_TIMED_OUT) || r->delay_ns < 50000000ULL)
		fail("exit after timeout: reason %u flags %#x", r->reason, r->flags);
	must_write(TRACKER_DIR "/timeout_ns", "0");
	drain(b);
	pass("timeout alert while pending, then the exit flagged TIMED_OUT");
}

static void test_suppressed(int a, int b)
{
	uint64_t sup0 = read_u64(SYS_DIR "/alerts_suppressed");
	uint64_t tsup0 = read_u64(TRACKER_DIR "/stats/suppressed");
	int n;

	must_write(SYS_DIR "/alert_rate_per_s", "1");
	must_write(SYS_DIR "/alert_burst", "1");
	usleep(1100000); /* a full bucket: one record's worth of credit at 1/s */
	emit("threshold 5");
	n = drain(a);
	if (n != 1)
		fail("rate 1/s burst 1: %d records, expected 1", n);
	if (read_u64(SYS_DIR "/alerts_suppressed") - sup0 != 4 ||
	    read_u64(TRACKER_DIR "/stats/suppressed") - tsup0 != 4)
		fail("suppressed counters did not grow by 4");
	must_write(SYS_DIR "/alert_rate_per_s", "1000000");
	must_write(SYS_DIR "/alert_burst", "65536");
	usleep(100000);
	emit("threshold 1");
	if (read_recs(a, MAXREC) != 1)
		fail("after the storm: read");
	if (recs[0].suppressed != 4)
		fail("next record reports %" PRIu64 " suppressed, expected 4",
		     (uint64_t)recs[0].suppressed);
	drain(b);
	pass("rate limit: 4 of 5 suppressed, counted in sysfs and in the next record");
}

static void test_lost(int a, int b)
{
	uint64_t ring = read_u64(SYS_DIR "/ring_records"), got = 0, first_seq;
	char cmd[64];
	int n, i;

	snprintf(cmd, sizeof(cmd), "threshold %" PRIu64, ring + 10);
	usleep(100000);
	emit(cmd);
	n = read_recs(a, MAXREC);
	if (n < 2 || recs[0].kind != LATENCY_TRACKER_REC_LOST || recs[0].lost != 10)
		fail("expected a LOST record of 10 first, got kind %u lost %" PRIu64, recs[0].kind,
		     (uint64_t)recs[0].lost);
	first_seq = recs[0].seq + recs[0].lost;
	if (recs[1].seq != first_seq || recs[1].data[0] != 10)
		fail("first record after the loss: seq %" PRIu64 " data0 %" PRIu64,
		     (uint64_t)recs[1].seq, (uint64_t)recs[1].data[0]);
	have_seq = 0;
	for (i = 1; i < n; i++)
		check_header(&recs[i], LATENCY_TRACKER_REC_ALERT);
	got = n - 1;
	while ((n = read_recs(a, MAXREC)) > 0) {
		for (i = 0; i < n; i++)
			check_header(&recs[i], LATENCY_TRACKER_REC_ALERT);
		got += n;
	}
	if (got != ring)
		fail("read %" PRIu64 " records after the loss, expected %" PRIu64, got, ring);
	/* SEEK_SET rewinds to the oldest record kept. */
	if (lseek(b, 0, SEEK_SET) < 0 || read_recs(b, 1) != 1 || recs[0].seq != first_seq)
		fail("SEEK_SET did not rewind to seq %" PRIu64, first_seq);
	lseek(b, 0, SEEK_END);
	pass("a reader 10 records behind gets LOST(10) then the ring, in order");
}

/* A thread pinned to one CPU, polling one open file: how often it was woken. */
struct poller {
	int fd, cpu;
	int wait_ms; /* poll's timeout, 0 for 200 ms (then stop is looked at); -1: none */
	pid_t tid;
	_Atomic int wakes, records, stop;
	pthread_t thread;
};

static void pin(int cpu)
{
	int r = pin_cpu(cpu);

	if (r)
		fail("pin to CPU %d: %s", cpu, strerror(-r));
}

static void pin_all(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (long c = 0; c < ncpus && c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail("unpin: %s", strerror(errno));
}

static void *poller_run(void *arg)
{
	struct latency_tracker_record buf[MAXREC];
	struct poller *p = arg;
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
	ssize_t n;

	pin(p->cpu);
	p->tid = (pid_t)syscall(SYS_gettid);
	while (!p->stop) {
		if (poll(&pfd, 1, p->wait_ms ? p->wait_ms : 200) <= 0)
			continue;
		p->wakes++;
		while ((n = read(p->fd, buf, sizeof(buf))) > 0)
			p->records += (int)(n / RSIZE);
	}
	return NULL;
}

static void pollers_asleep(struct poller *ps, int n)
{
	for (int i = 0; i < n; i++) {
		while (!ps[i].tid)
			usleep(1000);
		if (wait_sleeping(ps[i].tid))
			fail("poller on CPU %d never slept", ps[i].cpu);
	}
}

/*
 * Open file A has a thread on CPU 0 and one on CPU 1, file B one thread on CPU 0. An alert
 * raised on CPU c wakes A's thread on c alone, and B's thread wherever c is (none of B's
 * waits on CPU 1: all of B's threads are woken).
 */
static void test_cpu_wake(void)
{
	enum { A0, A1, B0, N_POLLERS };
	struct poller ps[N_POLLERS] = {{.cpu = 0}, {.cpu = 1}, {.cpu = 0}};
	int a = open_dev(O_NONBLOCK), b = open_dev(O_NONBLOCK), n = 5, want = 0;
	int before[N_POLLERS], woke[2][N_POLLERS];

	if (ncpus < 2) {
		pass("one CPU: no pinned-thread wakeup to check");
		return;
	}
	ps[A0].fd = ps[A1].fd = a;
	ps[B0].fd = b;
	for (int i = 0; i < N_POLLERS; i++)
		if (pthread_create(&ps[i].thread, NULL, poller_run, &ps[i]))
			fail("pthread_create");
	for (int c = 0; c < 2; c++) {
		for (int i = 0; i < N_POLLERS; i++)
			before[i] = ps[i].wakes;
		for (int k = 0; k < n; k++) {
			uint64_t t0 = now_ns();

			pollers_asleep(ps, N_POLLERS);
			pin(c);
			emit("threshold 1");
			want++;
			while (ps[A0].records + ps[A1].records < want || ps[B0].records < want) {
				if (now_ns() - t0 > 5000000000ULL)
					fail("CPU %d alert %d: A read %d, B read %d of %d", c, k,
					     ps[A0].records + ps[A1].records, ps[B0].records, want);
				usleep(1000);
			}
		}
		for (int i = 0; i < N_POLLERS; i++)
			woke[c][i] = ps[i].wakes - before[i];
	}
	for (int i = 0; i < N_POLLERS; i++)
		ps[i].stop = 1;
	for (int i = 0; i < N_POLLERS; i++)
		pthread_join(ps[i].thread, NULL);
	printf("wakes on CPU 0 alerts: A0 %d A1 %d B0 %d; on CPU 1 alerts: A0 %d A1 %d B0 %d\n",
	       woke[0][A0], woke[0][A1], woke[0][B0], woke[1][A0], woke[1][A1], woke[1][B0]);
	if (!woke[0][A0] || woke[0][A1] || !woke[1][A1] || woke[1][A0])
		fail("A's thread on the alerting CPU alone should wake");
	if (!woke[0][B0] || !woke[1][B0])
		fail("B's only thread should wake for alerts on either CPU");
	pin_all();
	close(a);
	close(b);
	pass("an alert wakes the open file's thread pinned to its CPU alone, else them all");
}

/* sched_rt_runtime_us as it was, put back at exit, a failed check's too ("" until read). */
static const char *const rt_runtime = "/proc/sys/kernel/sched_rt_runtime_us";
static char rt_runtime_saved[32];

static void rt_runtime_restore(void)
{
	FILE *f;

	if (!rt_runtime_saved[0] || !(f = fopen(rt_runtime, "w")))
		return;
	fputs(rt_runtime_saved, f);
	fclose(f);
}

struct hog {
	struct poller *away; /* the open file's thread on the other CPU */
	int got;	     /* it read the alert while the hog still ran */
};

/* SCHED_FIFO 90 on CPU 1: raises an alert, then runs until the other thread read it. */
static void *hog_run(void *arg)
{
	struct sched_param sp = {.sched_priority = 90};
	struct hog *h = arg;
	uint64_t t0;

	pin(1);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fail("SCHED_FIFO: %s", strerror(errno));
	emit("threshold 1");
	t0 = now_ns();
	while (!h->away->records && now_ns() - t0 < 3000000000ULL)
		;
	h->got = h->away->records > 0;
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	return NULL;
}

/*
 * An alert raised on CPU 1 by a realtime task that keeps running there: the open file's
 * thread pinned to CPU 1 cannot run, and its thread on CPU 0 must be woken to take it
 * (in the kernel's irq_work on !PREEMPT_RT, from CPU 0 on PREEMPT_RT, where CPU 1's
 * irq_work thread is held off too). Realtime throttling is off meanwhile, so that the
 * task holds CPU 1 whole; it gives up after 3 s, which fails the test.
 */
static void test_rt_hog_wake(void)
{
	/* No timeout: only a wakeup gets the thread on CPU 0 to read (cancelled at the end). */
	struct poller ps[2] = {{.cpu = 0, .wait_ms = -1}, {.cpu = 1, .wait_ms = -1}};
	int a = open_dev(O_NONBLOCK);
	struct hog h = {.away = &ps[0]};
	char saved[32] = "";
	pthread_t t;
	FILE *f;

	if (ncpus < 2) {
		pass("one CPU: no realtime task to take the alerting CPU from a reader");
		close(a);
		return;
	}
	f = fopen(rt_runtime, "r");
	if (!f || !fgets(saved, sizeof(saved), f))
		fail("read %s", rt_runtime);
	fclose(f);
	saved[strcspn(saved, "\n")] = 0;
	snprintf(rt_runtime_saved, sizeof(rt_runtime_saved), "%s", saved);
	atexit(rt_runtime_restore);
	must_write(rt_runtime, "-1");
	ps[0].fd = ps[1].fd = a;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&ps[i].thread, NULL, poller_run, &ps[i]))
			fail("pthread_create");
	pollers_asleep(ps, 2);
	if (pthread_create(&t, NULL, hog_run, &h))
		fail("pthread_create");
	pthread_join(t, NULL);
	must_write(rt_runtime, saved);
	rt_runtime_saved[0] = 0;
	for (int i = 0; i < 2; i++) {
		pthread_cancel(ps[i].thread);
		pthread_join(ps[i].thread, NULL);
	}
	close(a);
	if (!h.got)
		fail("an alert raised by a realtime task holding CPU 1 waited for it: the thread "
		     "on CPU 0 was not woken (CPU 0 read %d, CPU 1 %d)",
		     ps[0].records, ps[1].records);
	pass("an alert raised by a realtime task holding its CPU wakes the thread on the other");
}

int main(void)
{
	uint64_t dropped;
	int a, b;

	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	prctl(PR_GET_NAME, comm);
	ncpus = sysconf(_SC_NPROCESSORS_CONF);

	a = open_dev(O_NONBLOCK);
	b = open_dev(0);
	test_empty(a);
	test_threshold(a, b);
	test_partial(a, b);
	test_blocking(a, b);
	test_sched(a, b);
	test_epoll(a, b);
	test_timeout(a, b);
	test_suppressed(a, b);
	test_lost(a, b);
	test_cpu_wake();
	test_rt_hog_wake();
	dropped = read_u64(SYS_DIR "/alerts_dropped");
	if (dropped)
		fail("%" PRIu64 " alerts dropped", dropped);
	must_write(SYS_DIR "/alert_rate_per_s", "200");
	must_write(SYS_DIR "/alert_burst", "200");
	close(a);
	close(b);
	pass("lt-alerts: all notification-file checks");
	return 0;
}
