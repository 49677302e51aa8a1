/* SPDX-License-Identifier: GPL-2.0-only */
/* Text output of config and reload: the settings one per line, as the file spells them. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyctl.h"

/* Each setting; one that a file set says which file and line ("origins", 1.3). */
static void print_settings(const char *prefix, struct json_object *o, struct json_object *origins)
{
	struct json_object *origin;
	char name[256];

	json_object_object_foreach(o, key, val)
	{
		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? "." : "", key);
		if (json_object_is_type(val, json_type_object)) {
			print_settings(name, val, origins);
			continue;
		}
		printf("%s = %s", name,
		       json_object_to_json_string_ext(val, JSON_C_TO_STRING_SPACED |
								   JSON_C_TO_STRING_NOSLASHESCAPE));
		if (origins && json_object_object_get_ex(origins, name, &origin))
			printf("  # %s", json_str(origin, "?"));
		printf("\n");
	}
}

static void print_saved_problem(struct json_object *result)
{
	struct json_object *problem;

	if (json_object_object_get_ex(result, PROTO_KEY_SAVED_PROBLEM, &problem))
		fprintf(stderr,
			"latencyctl: warning: the saved settings are ignored, the file has a "
			"problem: %s\n",
			json_str(problem, "?"));
}

int text_config(struct json_object *result)
{
	struct json_object *settings = NULL, *source = NULL, *origins = NULL, *saved = NULL;
	const char *from, *saved_file;

	if (!json_object_object_get_ex(result, PROTO_KEY_SETTINGS, &settings) ||
	    !json_object_is_type(settings, json_type_object)) {
		fprintf(stderr, "latencyctl: config: malformed reply from latencyd\n");
		return EXIT_CONNECT;
	}
	json_object_object_get_ex(result, PROTO_KEY_SOURCE, &source);
	from = json_str(source, "");
	printf("# the configuration latencyd runs with: %s\n",
	       from[0] ? from : "built-in defaults (no file)");
	json_object_object_get_ex(result, PROTO_KEY_SAVED_FILE, &saved);
	saved_file = json_str(saved, "");
	if (saved_file[0])
		printf("# overridden by the settings saved in %s\n", saved_file);
	print_saved_problem(result);
	json_object_object_get_ex(result, PROTO_KEY_ORIGINS, &origins);
	print_settings("", settings, origins);
	return EXIT_OK;
}

int text_reloaded(struct json_object *result)
{
	struct json_object *source = NULL, *op = NULL;
	const char *from, *pending;

	json_object_object_get_ex(result, PROTO_KEY_SOURCE, &source);
	from = json_str(source, "");
	printf("Configuration reloaded from %s.\n", from[0] ? from : "built-in defaults");
	print_saved_problem(result);
	/* The session's part of it (1.14): lttng-sessiond's answer is not waited for. A
	 * null or another type than a string is no operation named. */
	json_object_object_get_ex(result, PROTO_KEY_OPERATION, &op);
	pending = json_str(op, NULL);
	if (pending) {
		if (strcmp(pending, "re-create") == 0)
			printf("Pending: the session is re-created once lttng-sessiond answers");
		else
			printf("Pending: the session's %s, once lttng-sessiond answers", pending);
		printf(" (latencyctl status says how long it has waited).\n");
	}
	return EXIT_OK;
}

/* "comm=nginx pid=812", or "none": a number or a string each, else "?". */
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
							json_object_is_type(val, json_type_int)
								? json_object_get_string(val)
								: json_str(val, "?"));
		}
	}
	if (!buf[0])
		snprintf(buf, size, "none");
}

int text_filter(struct json_object *result)
{
	struct json_object *tracker = NULL, *filter = NULL;
	char text[256], saved[PATH_MAX + 32];

	json_object_object_get_ex(result, PROTO_KEY_TRACKER, &tracker);
	json_object_object_get_ex(result, PROTO_KEY_FILTER, &filter);
	filter_text(text, sizeof(text), filter);
	saved_text(saved, sizeof(saved), result);
	printf("Tracker %s: filter %s%s\n", json_str(tracker, "?"), text, saved);
	return EXIT_OK;
}
