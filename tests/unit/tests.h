/* SPDX-License-Identifier: GPL-2.0-only */
/* Assertions for the unit tests: they print both values and abort, so a failure is loud. */
#ifndef LATENCYD_TESTS_H
#define LATENCYD_TESTS_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_TEST_SKIP 77

#define ASSERT_TRUE(expr)                                                                          \
	do {                                                                                       \
		if (!(expr)) {                                                                     \
			fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__,       \
				#expr);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define ASSERT_EQ(a, b)                                                                            \
	do {                                                                                       \
		long long _a = (long long)(a), _b = (long long)(b);                                \
		if (_a != _b) {                                                                    \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,        \
				__LINE__, #a, #b, _a, _b);                                         \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define ASSERT_STREQ(a, b)                                                                         \
	do {                                                                                       \
		const char *_a = (a), *_b = (b);                                                   \
		if (!_a || !_b || strcmp(_a, _b) != 0) {                                           \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,    \
				__LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)");         \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define ASSERT_CONTAINS(haystack, needle)                                                          \
	do {                                                                                       \
		const char *_h = (haystack), *_n = (needle);                                       \
		if (!_h || !strstr(_h, _n)) {                                                      \
			fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,       \
				__LINE__, _h ? _h : "(null)", _n);                                 \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define RUN(test)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "== %s\n", #test);                                                 \
		test();                                                                            \
	} while (0)

/* Writes TEXT to DIR/NAME and returns that path (a static buffer: until the next call). */
static inline const char *test_write_file(const char *dir, const char *name, const char *text)
{
	static char path[PATH_MAX];
	FILE *f;

	ASSERT_TRUE(snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path));
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/*
 * What the code between test_capture_start() and test_capture_end() writes to FD (stdout or
 * stderr), through the file descriptor itself: what the program prints, whether by stdio or
 * by write(2).
 */
struct test_capture {
	int fd;
	int saved;
	FILE *file;
};

static inline void test_capture_start(struct test_capture *c, int fd)
{
	c->fd = fd;
	c->file = tmpfile();
	c->saved = dup(fd);
	ASSERT_TRUE(c->file && c->saved >= 0);
	fflush(stdout);
	fflush(stderr);
	ASSERT_TRUE(dup2(fileno(c->file), fd) >= 0);
}

/* Gives FD back; returns what was written to it, NUL-terminated (to free). */
static inline char *test_capture_end(struct test_capture *c)
{
	char *text;
	long size;

	fflush(stdout);
	fflush(stderr);
	ASSERT_TRUE(dup2(c->saved, c->fd) >= 0);
	close(c->saved);
	ASSERT_TRUE(fseek(c->file, 0, SEEK_END) == 0 && (size = ftell(c->file)) >= 0);
	rewind(c->file);
	text = malloc(size + 1);
	ASSERT_TRUE(text && fread(text, 1, size, c->file) == (size_t)size);
	text[size] = 0;
	fclose(c->file);
	return text;
}

#endif /* LATENCYD_TESTS_H */
