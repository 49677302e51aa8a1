/* SPDX-License-Identifier: GPL-2.0-only */
/* The settings as latencyctl config shows them, and as the saved-settings file spells them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <limits.h>

#include <json-c/json.h>

#include <latency_tracker.h>

#include "log.h"
#include "proto.h"
#include "conf_internal.h"

/* Finds or makes the object for the groups of name ("a.b.c": a, then b), returns the leaf. */
static struct json_object *group_of(struct json_object *root, const char *name, const char **leaf)
{
	struct json_object *o = root, *g;
	const char *dot;
	char part[64];

	while ((dot = strchr(name, '.')) && o) {
		snprintf(part, sizeof(part), "%.*s", (int)(dot - name), name);
		if (!json_object_object_get_ex(o, part, &g)) {
			g = json_object_new_object();
			if (!g || json_object_object_add(o, part, g) < 0) {
				json_object_put(g);
				return NULL;
			}
		}
		o = g;
		name = dot + 1;
	}
	*leaf = name;
	return o;
}

static struct json_object *value_json(const struct conf *c, const struct conf_key *k)
{
	const char *base = (const char *)c + k->offset;
	struct json_object *a;
	char buf[64];

	switch (k->type) {
	case CONF_BOOL:
		return json_object_new_boolean(*(const bool *)base);
	case CONF_UINT:
	case CONF_UINT_OFF:
	case CONF_POW2:
		return json_object_new_int64((int64_t) * (const uint64_t *)base);
	case CONF_RATE:
	case CONF_RATE_LIMIT:
		return json_object_new_double(*(const double *)base);
	case CONF_DURATION:
	case CONF_DURATION_OFF:
		/* Exact, as the file would need it: "1234567ns" rather than "1.235ms". */
		conf_duration_text(buf, sizeof(buf), *(const uint64_t *)base, true);
		return json_object_new_string(buf);
	case CONF_LOG_LEVEL:
		return json_object_new_string(log_level_to_string(*(const int *)base));
	case CONF_DOMAIN:
		return json_object_new_string(
			*(const int *)base == CONF_DOMAIN_USERSPACE ? "userspace" : "kernel");
	case CONF_OVERRIDES: {
		const struct conf_buckets *b = (const struct conf_buckets *)base;

		a = json_object_new_array();
		for (size_t i = 0; a && i < b->n; i++) {
			char text[LATENCY_TRACKER_NAME_LEN + 64];

			snprintf(text, sizeof(text), "%s=%g/%u", b->v[i].tracker, b->v[i].rate,
				 b->v[i].burst);
			json_object_array_add(a, json_object_new_string(text));
		}
		return a;
	}
	case CONF_EVENTS:
		a = json_object_new_array();
		for (char *const *v = *(char *const *const *)base; a && v && *v; v++)
			json_object_array_add(a, json_object_new_string(*v));
		return a;
	default:
		break;
	}
	return conf_key_is_string(k->type) ? json_object_new_string(*(char *const *)base ?: "")
					   : NULL;
}

/* The libconfig spelling of a value of this setting, for the saved-settings file. */
int conf_literal(const char *key, const char *value, char **ret)
{
	const struct conf_key *k = conf_find_key(key);
	size_t len = 2;
	char *out, *p;

	if (!k)
		return -ENOENT;
	switch (conf_kind_of(k->type)) {
	case KIND_BOOL:
	case KIND_INT:
	case KIND_NUMBER:
		/* libconfig wants the L suffix from 2^31 up. */
		if (asprintf(ret, "%s%s", value,
			     conf_kind_of(k->type) == KIND_INT &&
					     strtoull(value, NULL, 10) > INT32_MAX
				     ? "L"
				     : "") < 0)
			return -ENOMEM;
		return 0;
	case KIND_LIST:
		return -EINVAL;
	case KIND_STRING:
	case KIND_DURATION:
		break;
	}
	for (const char *c = value; *c; c++)
		len += (unsigned char)*c < 0x20 ? 4 : *c == '"' || *c == '\\' ? 2 : 1;
	out = p = malloc(len + 1);
	if (!out)
		return -ENOMEM;
	*p++ = '"';
	for (const char *c = value; *c; c++) {
		if ((unsigned char)*c < 0x20)
			p += sprintf(p, "\\x%02x", (unsigned char)*c);
		else if (*c == '"' || *c == '\\')
			p += sprintf(p, "\\%c", *c);
		else
			*p++ = *c;
	}
	*p++ = '"';
	*p = 0;
	*ret = out;
	return 0;
}

struct json_object *conf_origins_json(const struct conf *c)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; o && i < conf_n_keys; i++) {
		if (!c->origins[i])
			continue;
		if (json_object_object_add(o, conf_keys[i].name,
					   json_object_new_string(c->origins[i])) < 0) {
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}

struct json_object *conf_to_json(const struct conf *c)
{
	struct json_object *root = json_object_new_object(), *g, *v;
	const char *leaf = NULL;

	for (size_t i = 0; root && i < conf_n_keys; i++) {
		g = group_of(root, conf_keys[i].name, &leaf);
		v = value_json(c, &conf_keys[i]);
		if (!g || !v || json_object_object_add(g, leaf, v) < 0) {
			json_object_put(v);
			json_object_put(root);
			return NULL;
		}
	}
	return root;
}

void conf_duration_text(char *buf, size_t size, uint64_t ns, bool zero_off)
{
	const char *why;
	uint64_t back;

	if (ns == 0 && zero_off) {
		snprintf(buf, size, "0");
		return;
	}
	/* The short form when it is exact; else nanoseconds, which always are. */
	proto_duration_format(buf, size, ns);
	if (proto_duration_parse(buf, &back, &why) < 0 || back != ns)
		snprintf(buf, size, "%" PRIu64 "ns", ns);
}
