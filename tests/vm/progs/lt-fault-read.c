/*
 * lt-fault-read: odd reads of /dev/latency_tracker. Needs at least 20 records in the ring
 * (the scenario emits them first). Every read must either fail with a clear errno
 * (EINVAL for a buffer smaller than one record or a seek the file does not have, EFAULT
 * for a bad buffer, EAGAIN when there is nothing to read) or return whole, valid records,
 * and a failed read must consume nothing. Prints PASS/FAIL lines; exit 0 on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "latency_tracker.h"

#define RS LATENCY_TRACKER_RECORD_SIZE

static int failed;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	if (!ok)
		failed = 1;
}

/* n bytes returned by a read: whole records, each valid, seq increasing from *next. */
static int whole(const unsigned char *buf, ssize_t n, uint64_t *next)
{
	if (n <= 0 || n % RS)
		return 0;
	for (ssize_t o = 0; o < n; o += RS) {
		struct latency_tracker_record r;

		memcpy(&r, buf + o, sizeof(r));
		if (r.size != RS || r.version != LATENCY_TRACKER_RECORD_VERSION ||
		    r.kind != LATENCY_TRACKER_REC_ALERT || (*next != UINT64_MAX && r.seq != *next))
			return 0;
		*next = r.seq + 1;
	}
	return 1;
}

static int fails_with(ssize_t n, int err)
{
	return n < 0 && errno == err;
}

int main(void)
{
	static unsigned char buf[1 << 20];
	struct iovec iov[2];
	/* volatile: bad buffers the compiler cannot see through */
	void *volatile null_buf = NULL, *volatile bad_buf = (void *)(uintptr_t)1;
	uint64_t next = UINT64_MAX;
	ssize_t n;
	int fd;

	fd = open(LATENCY_TRACKER_DEV_PATH, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		perror(LATENCY_TRACKER_DEV_PATH);
		return 1;
	}
	check(fails_with(read(fd, buf, 0), EINVAL), "read of 0 bytes: EINVAL");
	check(fails_with(read(fd, buf, 1), EINVAL), "read of 1 byte: EINVAL");
	check(fails_with(read(fd, buf, RS - 1), EINVAL), "read of a record - 1: EINVAL");
	n = read(fd, buf, RS + 1);
	check(n == RS && whole(buf, n, &next), "read of a record + 1: one whole record");
	check(fails_with(read(fd, null_buf, RS), EFAULT), "read into NULL: EFAULT");
	check(fails_with(read(fd, bad_buf, 4 * RS), EFAULT), "read into a bad address: EFAULT");
	n = read(fd, buf, RS);
	check(n == RS && whole(buf, n, &next), "a failed read consumed nothing");
	n = read(fd, buf, 2 * RS + RS / 2);
	check(n == 2 * RS && whole(buf, n, &next), "read of 2.5 records: two whole records");
	n = pread(fd, buf, RS, 12345);
	check(n == RS && whole(buf, n, &next), "pread at an offset: the next record (the position "
					       "is the reader's, not a byte offset)");
	iov[0].iov_base = buf;
	iov[0].iov_len = 7;
	iov[1].iov_base = buf + 7;
	iov[1].iov_len = RS;
	check(fails_with(readv(fd, iov, 2), EINVAL), "readv with a 7-byte first segment: EINVAL");
	iov[0].iov_len = RS;
	iov[1].iov_base = buf + RS;
	iov[1].iov_len = RS + 5;
	n = readv(fd, iov, 2);
	check(n > 0 && whole(buf, n, &next), "readv of record-sized segments: whole records");
	n = read(fd, buf, sizeof(buf));
	check(n > 0 && n <= 16 * RS && whole(buf, n, &next),
	      "huge read: whole records, at most 16");
	check(fails_with(lseek(fd, 5, SEEK_SET), EINVAL), "lseek(5, SEEK_SET): EINVAL");
	check(fails_with(lseek(fd, RS, SEEK_CUR), EINVAL), "lseek(record, SEEK_CUR): EINVAL");
	check(fails_with(lseek(fd, -1, SEEK_END), EINVAL), "lseek(-1, SEEK_END): EINVAL");
	check(fails_with(lseek(fd, 0, SEEK_DATA), EINVAL), "lseek(0, SEEK_DATA): EINVAL");
	check(lseek(fd, 0, SEEK_END) == 0, "lseek(0, SEEK_END): 0");
	check(fails_with(read(fd, buf, RS), EAGAIN), "nothing left after SEEK_END: EAGAIN");
	check(lseek(fd, 0, SEEK_SET) == 0, "lseek(0, SEEK_SET): 0");
	next = UINT64_MAX;
	n = read(fd, buf, 3 * RS);
	check(n == 3 * RS && whole(buf, n, &next), "after SEEK_SET: the oldest records again");
	check(fails_with(write(fd, buf, RS), EBADF), "write to a read-only open: EBADF");
	close(fd);
	fd = open(LATENCY_TRACKER_DEV_PATH, O_WRONLY);
	check(fd < 0 || fails_with(write(fd, buf, RS), EINVAL),
	      "write: refused (the file has no write)");
	if (fd >= 0)
		close(fd);
	return failed;
}
