/*
 * lt-dump [-n] [-f SEQ] [-t TRACKER] [-w MS] [-s]: prints the records still in
 * /dev/latency_tracker's ring (oldest first), one line each as key=value pairs, for
 * scenario scripts (grep and compare them with an LTTng snapshot).
 *   -n          print only the sequence number the next record will have, as a marker
 *   -f SEQ      only records with seq >= SEQ
 *   -t TRACKER  only alerts of TRACKER
 *   -w MS       wait up to MS milliseconds for a record that passes -f and -t
 *   -s          add stack=FUNC,FUNC,... symbolized through /proc/kallsyms
 * Text fields of the tracker types (uapi header) are printed by name: waker_comm, name,
 * rwbs, cookie.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "latency_tracker.h"

struct sym {
	uint64_t addr;
	char name[128];
};

static struct sym *syms;
static size_t nsyms;

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void syms_load(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[128], type;
	uint64_t a;
	size_t cap = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %127s", &a, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 65536;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				exit(1);
		}
		syms[nsyms].addr = a;
		memcpy(syms[nsyms].name, name, sizeof(name));
		nsyms++;
	}
	fclose(f);
	qsort(syms, nsyms, sizeof(*syms), sym_cmp);
}

static const char *sym_of(uint64_t addr)
{
	size_t lo = 0, hi = nsyms;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return nsyms && syms[lo].addr <= addr ? syms[lo].name : "?";
}

/* data[first..last] as text: printable bytes, others as '.', up to the first NUL. */
static void print_text(const char *key, const struct latency_tracker_record *r, int first, int last)
{
	const unsigned char *p = (const unsigned char *)&r->data[first];
	size_t i, n = (size_t)(last - first + 1) * sizeof(r->data[0]);

	printf(" %s=", key);
	for (i = 0; i < n && p[i]; i++)
		putchar(p[i] > ' ' && p[i] < 127 ? p[i] : '.');
}

static void print_record(const struct latency_tracker_record *r, int symbolize)
{
	uint32_t i;

	if (r->kind == LATENCY_TRACKER_REC_LOST) {
		printf("kind=lost seq=%" PRIu64 " lost=%" PRIu64 "\n", (uint64_t)r->seq,
		       (uint64_t)r->lost);
		return;
	}
	printf("kind=alert seq=%" PRIu64 " tracker=%.32s reason=%u pid=%d tid=%d "
	       "comm=%.16s start_cpu=%u end_cpu=%u start_ns=%" PRIu64 " end_ns=%" PRIu64
	       " delay_ns=%" PRIu64 " data0=%" PRIu64 " suppressed=%" PRIu64 " nr_stack=%u"
	       " data1=%" PRIu64 " data2=%" PRIu64 " data3=%" PRIu64 " flags=%u type=%u",
	       (uint64_t)r->seq, (const char *)r->tracker, r->reason, r->pid, r->tid,
	       (const char *)r->comm, r->start_cpu, r->end_cpu, (uint64_t)r->start_ns,
	       (uint64_t)r->end_ns, (uint64_t)r->delay_ns, (uint64_t)r->data[0],
	       (uint64_t)r->suppressed, r->nr_stack, (uint64_t)r->data[1], (uint64_t)r->data[2],
	       (uint64_t)r->data[3], r->flags, r->tracker_type);
	switch (r->tracker_type) {
	case LATENCY_TRACKER_TYPE_WAKEUP:
	case LATENCY_TRACKER_TYPE_OFFCPU:
		print_text("waker_comm", r, 2, 3);
		break;
	case LATENCY_TRACKER_TYPE_IRQ:
		print_text("name", r, 2, 3);
		break;
	case LATENCY_TRACKER_TYPE_BLOCK:
		print_text("rwbs", r, 3, 3);
		break;
	case LATENCY_TRACKER_TYPE_APP:
		print_text("cookie", r, 0, 3);
		break;
	default:
		break;
	}
	if (symbolize && r->nr_stack) {
		printf(" stack=");
		for (i = 0; i < r->nr_stack && i < LATENCY_TRACKER_STACK_DEPTH; i++)
			printf("%s%s", i ? "," : "", sym_of(r->stack[i]));
	}
	putchar('\n');
}

static int wanted(const struct latency_tracker_record *r, uint64_t from, const char *tracker)
{
	if (r->seq < from && r->kind == LATENCY_TRACKER_REC_ALERT)
		return 0;
	return !tracker ||
	       (r->kind == LATENCY_TRACKER_REC_ALERT && !strcmp((const char *)r->tracker, tracker));
}

/* One pass over the ring. Return: records printed, -1 on error; *next: seq after the last. */
static int dump(int fd, uint64_t from, const char *tracker, int print, int symbolize,
		uint64_t *next)
{
	struct latency_tracker_record recs[16];
	ssize_t n;
	int i, count = 0;

	if (lseek(fd, 0, SEEK_SET) < 0) {
		fprintf(stderr, "lt-dump: lseek: %s\n", strerror(errno));
		return -1;
	}
	while ((n = read(fd, recs, sizeof(recs))) > 0) {
		for (i = 0; i < (int)(n / (ssize_t)sizeof(recs[0])); i++) {
			if (recs[i].kind == LATENCY_TRACKER_REC_ALERT)
				*next = recs[i].seq + 1;
			if (!wanted(&recs[i], from, tracker))
				continue;
			count++;
			if (print)
				print_record(&recs[i], symbolize);
		}
	}
	if (n < 0 && errno != EAGAIN) {
		fprintf(stderr, "lt-dump: read: %s\n", strerror(errno));
		return -1;
	}
	return count;
}

int main(int argc, char **argv)
{
	const char *tracker = NULL;
	uint64_t from = 0, next = 0;
	int fd, opt, marker = 0, symbolize = 0, wait_ms = 0, n;
	struct timespec t0, t;

	while ((opt = getopt(argc, argv, "nf:t:w:s")) != -1) {
		switch (opt) {
		case 'n':
			marker = 1;
			break;
		case 'f':
			from = strtoull(optarg, NULL, 10);
			break;
		case 't':
			tracker = optarg;
			break;
		case 'w':
			wait_ms = atoi(optarg);
			break;
		case 's':
			symbolize = 1;
			break;
		default:
			fprintf(stderr, "usage: lt-dump [-n] [-f SEQ] [-t TRACKER] [-w MS] [-s]\n");
			return 2;
		}
	}
	fd = open(LATENCY_TRACKER_DEV_PATH, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "lt-dump: %s: %s\n", LATENCY_TRACKER_DEV_PATH, strerror(errno));
		return 1;
	}
	if (marker) {
		if (dump(fd, 0, NULL, 0, 0, &next) < 0)
			return 1;
		printf("%" PRIu64 "\n", next);
		return 0;
	}
	if (symbolize)
		syms_load();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = dump(fd, from, tracker, 0, 0, &next);
		if (n < 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (n > 0 ||
		    (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= wait_ms)
			break;
		poll(NULL, 0, 20);
	}
	return dump(fd, from, tracker, 1, symbolize, &next) < 0;
}
