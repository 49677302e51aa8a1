/*
 * lt-analyze-flat FILE: prints a JSON document as one "path=value" line per leaf
 * (alerts.0.chain.1.woken_by.kind=timer), so that busybox sh scenarios can check
 * latencyctl analyze --json output with grep and sed. json-c is the one latencyctl uses,
 * loaded at run time: the test programs link nothing but libc.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct iter {
	void *opaque;
};

static void *(*from_file)(const char *);
static int (*get_type)(void *);
static size_t (*array_length)(void *);
static void *(*array_get)(void *, size_t);
static const char *(*get_string)(void *);
static struct iter (*iter_begin)(void *);
static struct iter (*iter_end)(void *);
static int (*iter_equal)(const struct iter *, const struct iter *);
static void (*iter_next)(struct iter *);
static const char *(*iter_name)(const struct iter *);
static void *(*iter_value)(const struct iter *);

enum { T_NULL, T_BOOL, T_DOUBLE, T_INT, T_OBJECT, T_ARRAY, T_STRING };

static void flat(void *o, char *path, size_t len)
{
	int t = o ? get_type(o) : T_NULL;

	if (t == T_OBJECT) {
		struct iter it = iter_begin(o), end = iter_end(o);

		for (; !iter_equal(&it, &end); iter_next(&it)) {
			int n = snprintf(path + len, 4096 - len, "%s%s", len ? "." : "",
					 iter_name(&it));

			flat(iter_value(&it), path, len + (size_t)n);
		}
	} else if (t == T_ARRAY) {
		for (size_t i = 0; i < array_length(o); i++) {
			int n = snprintf(path + len, 4096 - len, "%s%zu", len ? "." : "", i);

			flat(array_get(o, i), path, len + (size_t)n);
		}
	} else {
		path[len] = 0;
		/* strings keep their newlines out of the line format */
		const char *v = o ? get_string(o) : "null";

		printf("%s=", path);
		for (; *v; v++)
			putchar(*v == '\n' ? ' ' : *v);
		putchar('\n');
	}
}

#define SYM(var, name)                                                                             \
	do {                                                                                       \
		*(void **)&var = dlsym(lib, name);                                                 \
		if (!var) {                                                                        \
			fprintf(stderr, "lt-analyze-flat: no %s in json-c\n", name);               \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	void *lib = dlopen("libjson-c.so.5", RTLD_NOW), *doc;
	char path[4096] = "";

	if (argc != 2 || !lib) {
		fprintf(stderr, "usage: lt-analyze-flat FILE (needs libjson-c.so.5)\n");
		return 2;
	}
	SYM(from_file, "json_object_from_file");
	SYM(get_type, "json_object_get_type");
	SYM(array_length, "json_object_array_length");
	SYM(array_get, "json_object_array_get_idx");
	SYM(get_string, "json_object_get_string");
	SYM(iter_begin, "json_object_iter_begin");
	SYM(iter_end, "json_object_iter_end");
	SYM(iter_equal, "json_object_iter_equal");
	SYM(iter_next, "json_object_iter_next");
	SYM(iter_name, "json_object_iter_peek_name");
	SYM(iter_value, "json_object_iter_peek_value");
	doc = from_file(argv[1]);
	if (!doc) {
		fprintf(stderr, "lt-analyze-flat: %s: not JSON\n", argv[1]);
		return 1;
	}
	flat(doc, path, 0);
	return 0;
}
