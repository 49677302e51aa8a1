/* SPDX-License-Identifier: GPL-2.0-only */
/* Durations and sizes as every text table writes them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"

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

void ns_text(char *buf, size_t size, struct json_object *o, const char *key, bool zero_off)
{
	struct json_object *v;
	int64_t ns;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int) ||
	    (ns = json_object_get_int64(v)) < 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (ns == 0 && zero_off)
		snprintf(buf, size, "off");
	else
		proto_duration_format(buf, size, (uint64_t)ns);
}

void bytes_text(char *buf, size_t size, int64_t b)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	size_t u = 0;

	if (b < 0) {
		snprintf(buf, size, "-");
		return;
	}
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* A duration as the commands take it ("1s", "500ms"), or a bare number of seconds as systemd
 * and the *stat tools take an interval ("2"). */
int parse_seconds(const char *s, uint64_t *ns, const char **why)
{
	char with_unit[64];

	if (s[0] == '-')
		return *why = "it must be positive", -EINVAL;
	if (strspn(s, "0123456789.") == strlen(s) && strlen(s) < sizeof(with_unit) - 1) {
		snprintf(with_unit, sizeof(with_unit), "%ss", s);
		s = with_unit;
	}
	if (proto_duration_parse(s, ns, why) < 0)
		return -EINVAL;
	if (*ns == 0)
		return *why = "it must be positive", -EINVAL;
	return 0;
}
