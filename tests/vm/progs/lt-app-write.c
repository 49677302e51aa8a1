/*
 * lt-app-write STRING...: writes each STRING to /dev/latency_tracker_app in one write(2)
 * (\n and \xHH escapes are decoded, so binary and empty writes can be tested) and prints
 * one line per STRING: "ok" or the error name (EINVAL, ENOENT...). Exit 0 if every write
 * was made, whatever its result; 1 if the device cannot be opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latency_tracker.h"

static size_t decode(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'n') {
			out[n++] = '\n';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char hex[3] = {s[2], s[3], 0};

			out[n++] = (char)strtoul(hex, NULL, 16);
			s += 4;
		} else {
			out[n++] = *s++;
		}
	}
	return n;
}

static const char *err_name(int e)
{
	switch (e) {
	case EINVAL:
		return "EINVAL";
	case ENOENT:
		return "ENOENT";
	case EFAULT:
		return "EFAULT";
	case ENODEV:
		return "ENODEV";
	default:
		return strerror(e);
	}
}

int main(int argc, char **argv)
{
	int fd, i;

	fd = open(LATENCY_TRACKER_APP_PATH, O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "lt-app-write: %s: %s\n", LATENCY_TRACKER_APP_PATH,
			strerror(errno));
		return 1;
	}
	for (i = 1; i < argc; i++) {
		char *buf = malloc(strlen(argv[i]) + 1);
		size_t n = decode(argv[i], buf);
		ssize_t r = write(fd, buf, n);

		if (r == (ssize_t)n)
			printf("ok\n");
		else if (r < 0)
			printf("%s\n", err_name(errno));
		else
			printf("short %zd\n", r);
		free(buf);
	}
	close(fd);
	return 0;
}
