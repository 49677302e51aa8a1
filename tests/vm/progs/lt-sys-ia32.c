/*
 * lt-sys-ia32 MS: the syscalls tracker and a 32-bit process's calls. A 64-bit
 * process's int $0x80 is an ia32 system call (the numbers of 32-bit x86, TS_COMPAT set), as
 * a 32-bit program's are: poll(NULL, 0, MS) (ia32 168) and futex(FUTEX_WAIT) timing out
 * after MS (ia32 240) block by design and raise no alert (exclude_syscalls_ia32), while
 * nanosleep(MS) (ia32 162) raises one, with its ia32 number. A child that ends with the
 * ia32 exit (1; native 1 is write) leaves no call pending (stats/pending, read with the
 * tracker's filter_comm set to this program). Expects a threshold below MS. Prints
 * PASS/FAIL lines; exit 0 on success.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latency_tracker.h"
#include "lt-progs.h"

#define IA32_EXIT      1
#define IA32_NANOSLEEP 162
#define IA32_POLL      168
#define IA32_FUTEX     240
#define FUTEX_WAIT     0

#define PENDING "/sys/kernel/latency_tracker/syscalls/stats/pending"

struct timespec32 {
	int32_t tv_sec, tv_nsec;
};

/* An ia32 system call: its arguments are 32 bits, pointers too (below 4 GiB). */
static long ia32(long nr, long a, long b, long c, long d)
{
	long ret = nr;

	__asm__ volatile("int $0x80"
			 : "+a"(ret)
			 : "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static long pending(void)
{
	char buf[32] = "";
	FILE *f = fopen(PENDING, "r");

	if (!f || !fgets(buf, sizeof(buf), f))
		fail("read %s", PENDING);
	fclose(f);
	return atol(buf);
}

int main(int argc, char **argv)
{
	struct latency_tracker_record rec[16];
	struct {
		struct timespec32 ts;
		int32_t word;
	} * low;
	pid_t tid = (pid_t)syscall(SYS_gettid), child;
	int ms, fd, status, excluded = 0, slept = 0;
	long r, before;

	if (argc != 2)
		return 2;
	ms = atoi(argv[1]);
	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1,
		   0);
	if (low == MAP_FAILED)
		fail("mmap below 4 GiB");
	low->ts = (struct timespec32){ms / 1000, (ms % 1000) * 1000000};
	fd = open(LATENCY_TRACKER_DEV_PATH, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		fail("open %s", LATENCY_TRACKER_DEV_PATH);
	lseek(fd, 0, SEEK_END);

	r = ia32(IA32_POLL, 0, 0, ms, 0);
	if (r != 0)
		fail("ia32 poll returned %ld, not 0: no ia32 emulation?", r);
	r = ia32(IA32_FUTEX, (long)(uintptr_t)&low->word, FUTEX_WAIT, 0, (long)(uintptr_t)&low->ts);
	if (r != -110)
		fail("ia32 futex wait returned %ld, not -ETIMEDOUT", r);
	r = ia32(IA32_NANOSLEEP, (long)(uintptr_t)&low->ts, 0, 0, 0);
	if (r != 0)
		fail("ia32 nanosleep returned %ld", r);

	/* Give the alerts time to arrive. */
	poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, 300);
	while ((r = read(fd, rec, sizeof(rec))) > 0) {
		for (int i = 0; i < r / (ssize_t)sizeof(rec[0]); i++) {
			struct latency_tracker_record *x = &rec[i];

			if (x->kind != LATENCY_TRACKER_REC_ALERT ||
			    strcmp((char *)x->tracker, "syscalls") || x->tid != tid)
				continue;
			printf("alert nr=%" PRId64 " ret=%" PRId64 " delay_ns=%" PRIu64 "\n",
			       (int64_t)x->data[0], (int64_t)x->data[1], (uint64_t)x->delay_ns);
			if (x->data[0] == IA32_POLL || x->data[0] == IA32_FUTEX)
				excluded++;
			else if (x->data[0] == IA32_NANOSLEEP)
				slept++;
		}
	}
	if (excluded)
		fail("%d alert(s) for ia32 poll or futex, which block by design", excluded);
	if (slept != 1)
		fail("%d alert(s) for the ia32 nanosleep of %d ms, expected 1", slept, ms);
	printf("PASS: ia32 poll and futex not tracked, ia32 nanosleep alerted (nr %d)\n",
	       IA32_NANOSLEEP);

	before = pending();
	child = fork();
	if (child < 0)
		fail("fork");
	if (child == 0)
		ia32(IA32_EXIT, 0, 0, 0, 0);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("the child did not end with ia32 exit(0): status %#x", status);
	if (pending() > before)
		fail("%ld call(s) left pending by the ia32 exit (%ld before)", pending() - before,
		     before);
	printf("PASS: the ia32 exit left no call pending\n");
	return 0;
}
