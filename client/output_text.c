/* SPDX-License-Identifier: GPL-2.0-only */
/* Text output: label/value tables aligned on the longest label, durations with units. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"

#define ROWS_MAX  16
#define VALUE_MAX 256

struct table {
	size_t n;
	struct {
		const char *label;
		char value[VALUE_MAX];
	} rows[ROWS_MAX];
};

__attribute__((format(printf, 3, 4))) static void row(struct table *t, const char *label,
						      const char *fmt, ...)
{
	va_list ap;

	if (t->n >= ROWS_MAX)
		return;
	t->rows[t->n].label = label;
	va_start(ap, fmt);
	vsnprintf(t->rows[t->n].value, VALUE_MAX, fmt, ap);
	va_end(ap);
	t->n++;
}

static void print_table(const struct table *t)
{
	int width = 0;

	for (size_t i = 0; i < t->n; i++)
		if ((int)strlen(t->rows[i].label) > width)
			width = (int)strlen(t->rows[i].label);
	for (size_t i = 0; i < t->n; i++)
		printf("%-*s  %s\n", width, t->rows[i].label, t->rows[i].value);
}

/* The two most significant units: "2d 3h", "5min 7s", "42s", "250ms", "0s". Like snprintf,
 * returns the length of the whole text, which may not have fit. */
size_t format_duration(char *buf, size_t size, uint64_t usec)
{
	static const struct {
		const char *suffix;
		uint64_t usec;
	} units[] = {
		{"d", 86400000000ULL}, {"h", 3600000000ULL}, {"min", 60000000ULL},
		{"s", 1000000ULL},     {"ms", 1000ULL},
	};
	size_t len = 0;
	int parts = 0;

	if (size > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && parts < 2; i++) {
		uint64_t v = usec / units[i].usec;

		/* Milliseconds only for durations under a second. */
		if (v == 0 || (units[i].usec == 1000ULL && parts > 0))
			continue;
		usec -= v * units[i].usec;
		len += (size_t)snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
					"%s%" PRIu64 "%s", parts ? " " : "", v, units[i].suffix);
		parts++;
	}
	if (parts == 0)
		len = (size_t)snprintf(buf, size, "0s");
	return len;
}

struct status_module {
	const char *state;
	bool loaded;
	int64_t abi_major, abi_minor;
	const char *detail;
};

struct status {
	const char *version;
	int64_t pid, uptime_usec;
	struct json_object *module;
};

static int print_status(struct json_object *result)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_VERSION, PROTO_FIELD_STRING, 0, offsetof(struct status, version)},
		{PROTO_KEY_PID, PROTO_FIELD_INT, 0, offsetof(struct status, pid)},
		{PROTO_KEY_UPTIME_USEC, PROTO_FIELD_INT, 0, offsetof(struct status, uptime_usec)},
		{PROTO_KEY_MODULE, PROTO_FIELD_OBJECT, 0, offsetof(struct status, module)},
		{NULL},
	};
	static const struct proto_field module_fields[] = {
		{PROTO_KEY_STATE, PROTO_FIELD_STRING, 0, offsetof(struct status_module, state)},
		{PROTO_KEY_LOADED, PROTO_FIELD_BOOL, 0, offsetof(struct status_module, loaded)},
		{PROTO_KEY_ABI_MAJOR, PROTO_FIELD_INT, 0,
		 offsetof(struct status_module, abi_major)},
		{PROTO_KEY_ABI_MINOR, PROTO_FIELD_INT, 0,
		 offsetof(struct status_module, abi_minor)},
		{PROTO_KEY_DETAIL, PROTO_FIELD_STRING, 0, offsetof(struct status_module, detail)},
		{NULL},
	};
	struct status st = {.version = "?", .pid = -1, .uptime_usec = -1};
	struct status_module mod = {.state = "unknown", .abi_major = -1, .abi_minor = -1};
	struct table t = {0};
	char uptime[64];
	int r;

	r = result_dispatch(result, fields, &st, "status");
	if (r == EXIT_OK)
		r = result_dispatch(st.module, module_fields, &mod, "module status");
	if (r != EXIT_OK)
		return r;

	row(&t, "Daemon:", "latencyd %s", st.version);
	row(&t, "PID:", "%" PRId64, st.pid);
	if (st.uptime_usec >= 0) {
		format_duration(uptime, sizeof(uptime), (uint64_t)st.uptime_usec);
		row(&t, "Uptime:", "%s", uptime);
	}
	if (strcmp(mod.state, PROTO_MODULE_LOADED) == 0)
		row(&t, "Kernel module:", "loaded, ABI %" PRId64 ".%" PRId64, mod.abi_major,
		    mod.abi_minor);
	else if (strcmp(mod.state, PROTO_MODULE_NOT_LOADED) == 0)
		row(&t, "Kernel module:", "not loaded");
	else
		row(&t, "Kernel module:", "%s%s%s", mod.state, mod.detail ? ": " : "",
		    mod.detail ?: "");
	print_table(&t);
	return EXIT_OK;
}

struct version {
	const char *version;
	int64_t protocol, revision, abi_major, abi_minor;
};

static int print_version(struct json_object *result)
{
	static const struct proto_field fields[] = {
		{PROTO_KEY_VERSION, PROTO_FIELD_STRING, 0, offsetof(struct version, version)},
		{PROTO_KEY_PROTOCOL, PROTO_FIELD_INT, 0, offsetof(struct version, protocol)},
		{PROTO_KEY_REVISION, PROTO_FIELD_INT, 0, offsetof(struct version, revision)},
		{PROTO_KEY_ABI_MAJOR, PROTO_FIELD_INT, 0, offsetof(struct version, abi_major)},
		{PROTO_KEY_ABI_MINOR, PROTO_FIELD_INT, 0, offsetof(struct version, abi_minor)},
		{NULL},
	};
	struct version v = {.version = "?"};
	struct table t = {0};
	int r;

	r = result_dispatch(result, fields, &v, "version");
	if (r != EXIT_OK)
		return r;
	row(&t, "latencyctl:", "%s (protocol %d.%d)", LATENCYD_VERSION, PROTO_VERSION,
	    PROTO_REVISION);
	row(&t, "latencyd:", "%s (protocol %" PRId64 ".%" PRId64 ")", v.version, v.protocol,
	    v.revision);
	row(&t, "Kernel module ABI:", "%" PRId64 ".%" PRId64, v.abi_major, v.abi_minor);
	print_table(&t);
	return EXIT_OK;
}

static void print_error(const char *command, const char *code, const char *message)
{
	fprintf(stderr, "latencyctl: %s: %s (%s)\n", command, message, code);
}

const struct output output_text = {
	.name = "text",
	.status = print_status,
	.version = print_version,
	.error = print_error,
};
