/* SPDX-License-Identifier: GPL-2.0-only */
/* Text output of config and reload: the settings one per line, as the file spells them. */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"

static void print_settings(const char *prefix, struct json_object *o)
{
	char name[256];

	json_object_object_foreach(o, key, val)
	{
		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "", key);
		if (json_object_is_type(val, json_type_object))
			print_settings(name, val);
		else
			printf("%s = %s\n", name,
			       json_object_to_json_string_ext(
				       val,
				       JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	}
}

int text_config(struct json_object *result)
{
	struct json_object *settings = NULL, *source = NULL;
	const char *from;

	if (!json_object_object_get_ex(result, PROTO_KEY_SETTINGS, &settings) ||
	    !json_object_is_type(settings, json_type_object)) {
		fprintf(stderr, "latencyctl: config: malformed reply from latencyd\n");
		return EXIT_CONNECT;
	}
	json_object_object_get_ex(result, PROTO_KEY_SOURCE, &source);
	from = source ? json_object_get_string(source) : "";
	printf("# the configuration latencyd runs with: %s\n",
	       from[0] ? from : "built-in defaults (no file)");
	print_settings("", settings);
	return EXIT_OK;
}

int text_reloaded(struct json_object *result)
{
	struct json_object *source = NULL;
	const char *from;

	json_object_object_get_ex(result, PROTO_KEY_SOURCE, &source);
	from = source ? json_object_get_string(source) : "";
	printf("Configuration reloaded from %s.\n", from[0] ? from : "built-in defaults");
	return EXIT_OK;
}

/* "comm=nginx pid=812", or "none" */
void filter_text(char *buf, size_t size, struct json_object *filter)
{
	size_t len = 0;

	buf[0] = 0;
	if (filter && json_object_is_type(filter, json_type_object)) {
		json_object_object_foreach(filter, key, val)
		{
			if (len < size)
				len += (size_t)snprintf(buf + len, size - len, "%s%s=%s",
							len ? " " : "", key,
							json_object_get_string(val));
		}
	}
	if (!buf[0])
		snprintf(buf, size, "none");
}

int text_filter(struct json_object *result)
{
	struct json_object *tracker = NULL, *filter = NULL;
	char text[256];

	json_object_object_get_ex(result, PROTO_KEY_TRACKER, &tracker);
	json_object_object_get_ex(result, PROTO_KEY_FILTER, &filter);
	filter_text(text, sizeof(text), filter);
	printf("Tracker %s: filter %s, runtime only (not saved).\n",
	       tracker ? json_object_get_string(tracker) : "?", text);
	return EXIT_OK;
}
