/*
 * lt-dump: prints every record still in /dev/latency_tracker's ring (oldest first), one line
 * each as key=value pairs, without waiting. For scenario scripts that compare the records
 * with an LTTng snapshot.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "latency_tracker.h"

int main(void)
{
	struct latency_tracker_record recs[16];
	ssize_t n;
	int fd, i;

	fd = open(LATENCY_TRACKER_DEV_PATH, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "lt-dump: %s: %s\n", LATENCY_TRACKER_DEV_PATH, strerror(errno));
		return 1;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		fprintf(stderr, "lt-dump: lseek: %s\n", strerror(errno));
		return 1;
	}
	while ((n = read(fd, recs, sizeof(recs))) > 0) {
		for (i = 0; i < (int)(n / (ssize_t)sizeof(recs[0])); i++) {
			const struct latency_tracker_record *r = &recs[i];

			if (r->kind == LATENCY_TRACKER_REC_LOST) {
				printf("kind=lost seq=%" PRIu64 " lost=%" PRIu64 "\n",
				       (uint64_t)r->seq, (uint64_t)r->lost);
				continue;
			}
			printf("kind=alert seq=%" PRIu64 " tracker=%.32s reason=%u pid=%d tid=%d "
			       "comm=%.16s start_cpu=%u end_cpu=%u start_ns=%" PRIu64
			       " end_ns=%" PRIu64 " delay_ns=%" PRIu64 " data0=%" PRIu64
			       " suppressed=%" PRIu64 " nr_stack=%u\n",
			       (uint64_t)r->seq, (const char *)r->tracker, r->reason, r->pid,
			       r->tid, (const char *)r->comm, r->start_cpu, r->end_cpu,
			       (uint64_t)r->start_ns, (uint64_t)r->end_ns, (uint64_t)r->delay_ns,
			       (uint64_t)r->data[0], (uint64_t)r->suppressed, r->nr_stack);
		}
	}
	if (n < 0 && errno != EAGAIN) {
		fprintf(stderr, "lt-dump: read: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
