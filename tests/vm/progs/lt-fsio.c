/*
 * lt-fsio FILE OP...: one open file, then each OP in order, for the fs tracker's scenario.
 * FILE is opened read-write with O_DIRECT (so that every read and write reaches the disk)
 * and, with -s first, O_DSYNC too. OPs:
 *   r:OFF:LEN   pread() of LEN bytes at OFF
 *   w:OFF:LEN   pwrite() of LEN bytes at OFF
 *   R:OFF:LEN   preadv() of LEN bytes at OFF, in two iovecs
 *   W:OFF:LEN   pwritev() of LEN bytes at OFF, in two iovecs
 *   f           fsync()
 *   d           fdatasync()
 * Prints "tid TID" first, then for each OP "OP ret RET". Exit 0 when every call did all it
 * was asked; 1 otherwise, with the error; 2 on bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define ALIGN 4096

static int usage(void)
{
	fprintf(stderr,
		"usage: lt-fsio [-s] FILE r:OFF:LEN|w:OFF:LEN|R:OFF:LEN|W:OFF:LEN|f|d...\n");
	return 2;
}

static int run(int fd, const char *op, char *buf, size_t max)
{
	unsigned long long off, len;
	struct iovec iov[2];
	char kind, end;
	ssize_t ret;

	if (!strcmp(op, "f") || !strcmp(op, "d")) {
		ret = op[0] == 'f' ? fsync(fd) : fdatasync(fd);
		printf("%s ret %zd\n", op, ret);
		if (ret)
			fprintf(stderr, "lt-fsio: %s: %s\n", op, strerror(errno));
		return ret ? 1 : 0;
	}
	if (sscanf(op, "%c:%llu:%llu%c", &kind, &off, &len, &end) != 3 || !strchr("rwRW", kind) ||
	    !len || len > max || off % ALIGN ||
	    len % (kind == 'r' || kind == 'w' ? ALIGN : 2 * ALIGN))
		return 2;
	iov[0] = (struct iovec){.iov_base = buf, .iov_len = len / 2};
	iov[1] = (struct iovec){.iov_base = buf + len / 2, .iov_len = len / 2};
	switch (kind) {
	case 'r':
		ret = pread(fd, buf, len, (off_t)off);
		break;
	case 'w':
		ret = pwrite(fd, buf, len, (off_t)off);
		break;
	case 'R':
		ret = preadv(fd, iov, 2, (off_t)off);
		break;
	default:
		ret = pwritev(fd, iov, 2, (off_t)off);
	}
	printf("%s ret %zd\n", op, ret);
	if (ret != (ssize_t)len) {
		fprintf(stderr, "lt-fsio: %s: %s\n", op, ret < 0 ? strerror(errno) : "short");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const size_t max = 1 << 20;
	int flags = O_RDWR | O_DIRECT, fd, i = 1, r = 0;
	void *buf;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		flags |= O_DSYNC;
		i++;
	}
	if (argc - i < 2)
		return usage();
	if (posix_memalign(&buf, ALIGN, max))
		return 1;
	memset(buf, 0x5a, max);
	fd = open(argv[i], flags);
	if (fd < 0) {
		fprintf(stderr, "lt-fsio: %s: %s\n", argv[i], strerror(errno));
		return 1;
	}
	printf("tid %ld\n", (long)syscall(SYS_gettid));
	for (i++; i < argc && !r; i++) {
		r = run(fd, argv[i], buf, max);
		if (r == 2)
			return usage();
	}
	fflush(stdout);
	close(fd);
	free(buf);
	return r;
}
