/*
 * lt-fault-sysfs ITERATIONS SEED FILE...: writes random input to each FILE (the module's
 * writable sysfs files, the app marker file): random bytes, printable junk, digits with
 * junk, embedded NULs, huge numbers, a page and more, empty writes. Every write must fail
 * with an errno or take the whole buffer; a file that holds a number (read before) must
 * refuse anything but a plain decimal number ("+"? digits, one optional newline); every
 * file must still read afterwards. Each file gets its first content back at the end.
 * lt-fault-sysfs --as UID FILE...: as UID (no groups), opening each FILE for writing must
 * fail with EACCES (or EPERM).
 * Prints one line per file and FAIL lines; exit 0 on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failed;

static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

static ssize_t write_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, buf, len);
	close(fd);
	return n;
}

static int is_number(const char *s, size_t len)
{
	size_t i = 0;

	if (len && s[0] == '+')
		i++;
	if (i == len || s[i] < '0' || s[i] > '9')
		return 0;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i == len || (i == len - 1 && s[i] == '\n');
}

/* Fills buf with the i-th kind of bad input; returns its length. */
static size_t make_input(unsigned i, char *buf, size_t size)
{
	static const char *const edge[] = {
		"-0", "+1\n\n", "99999999999999999999999999", "1e3", "0x1", " 1",
		"1 ", "\n",	"18446744073709551616",	      "-1",  "1,2", "4294967296",
	};
	size_t len = 0;

	switch (i % 7) {
	case 0: /* random bytes */
		len = 1 + (size_t)rand() % 64;
		for (size_t k = 0; k < len; k++)
			buf[k] = (char)rand();
		break;
	case 1: /* printable junk */
		len = 1 + (size_t)rand() % 64;
		for (size_t k = 0; k < len; k++)
			buf[k] = (char)(' ' + rand() % 95);
		break;
	case 2: /* digits with one junk byte */
		len = 1 + (size_t)rand() % 24;
		for (size_t k = 0; k < len; k++)
			buf[k] = (char)('0' + rand() % 10);
		buf[rand() % len] = (char)rand();
		break;
	case 3: /* a digit, a NUL, junk */
		len = 3 + (size_t)rand() % 8;
		for (size_t k = 0; k < len; k++)
			buf[k] = (char)(' ' + rand() % 95);
		buf[0] = (char)('0' + rand() % 2);
		buf[1] = 0;
		break;
	case 4: /* a page or more */
		len = (i / 7) % 2 ? 4096 : size;
		memset(buf, '1', len);
		break;
	case 5: /* edge numbers */
		len = strlen(edge[(i / 7) % (sizeof(edge) / sizeof(edge[0]))]);
		memcpy(buf, edge[(i / 7) % (sizeof(edge) / sizeof(edge[0]))], len);
		break;
	case 6: /* empty */
		len = 0;
		break;
	}
	return len;
}

static void fuzz(const char *path, unsigned iterations)
{
	static char before[8192], after[8192], in[6000];
	unsigned refused = 0, taken = 0, empty = 0;
	int numeric;
	ssize_t n;

	if (read_file(path, before, sizeof(before)) < 0) {
		/* The app marker file is write-only. */
		before[0] = 0;
	}
	numeric = before[0] && is_number(before, strlen(before));
	for (unsigned i = 0; i < iterations; i++) {
		size_t len = make_input(i, in, sizeof(in));

		n = write_file(path, in, len);
		if (len == 0 && n == 0) {
			empty++;
			continue;
		}
		if (n < 0) {
			refused++;
			continue;
		}
		if ((size_t)n != len) {
			printf("FAIL: %s: write of %zu bytes returned %zd\n", path, len, n);
			failed = 1;
		}
		if (numeric && len && !is_number(in, len)) {
			printf("FAIL: %s took a write that is not a number (%zu bytes:", path, len);
			for (size_t k = 0; k < len && k < 24; k++)
				printf(" %02x", (unsigned char)in[k]);
			printf(")\n");
			failed = 1;
		}
		taken++;
		if (before[0] && read_file(path, after, sizeof(after)) < 0) {
			printf("FAIL: %s does not read after a write: %s\n", path, strerror(errno));
			failed = 1;
		}
	}
	if (before[0] && write_file(path, before, strlen(before)) < 0 &&
	    write_file(path, "\n", 1) < 0)
		printf("note: %s: first content not restored (%s)\n", path, strerror(errno));
	printf("%s: %u writes refused, %u taken%s, %u empty\n", path, refused, taken,
	       numeric ? " (numbers only)" : "", empty);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--as") == 0) {
		uid_t uid = (uid_t)atoi(argv[2]);

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
			perror("dropping privileges");
			return 1;
		}
		for (int i = 3; i < argc; i++) {
			int fd = open(argv[i], O_WRONLY);

			if (fd >= 0 || (errno != EACCES && errno != EPERM)) {
				printf("FAIL: uid %u opened %s for writing (%s)\n", (unsigned)uid,
				       argv[i], fd >= 0 ? "it worked" : strerror(errno));
				failed = 1;
				if (fd >= 0)
					close(fd);
			}
		}
		printf("uid %u: %d files refused for writing\n", (unsigned)uid, argc - 3);
		return failed;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: lt-fault-sysfs ITERATIONS SEED FILE...\n"
				"       lt-fault-sysfs --as UID FILE...\n");
		return 2;
	}
	srand((unsigned)atoi(argv[2]));
	for (int i = 3; i < argc; i++)
		fuzz(argv[i], (unsigned)atoi(argv[1]));
	return failed;
}
