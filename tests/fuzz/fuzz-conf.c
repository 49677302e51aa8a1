/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fuzz target: the configuration loader on the text of a latencyd.conf (first byte even) or
 * of a saved-settings file (odd): libconfig's parser, the setting table, every value
 * checker, the diagnostics, then the loaded configuration as latencyctl config shows it.
 * A value accepted once must be accepted again as conf_literal() spells it for the saved
 * file (what --save writes, latencyd must read back).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "latencyd.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	log_init("fuzz-conf", LOG_CRIT);
	return 0;
}

/* Every trackers.* value of c, spelled by conf_literal(), must parse back to itself. */
static void check_round_trip(struct conf *c)
{
	struct json_object *settings = conf_to_json(c), *trackers, *again_json;
	struct conf_diag diag = {0};
	struct conf *again;
	char *text = NULL, *literal;
	size_t len = 0;
	FILE *f;

	if (!settings)
		abort();
	f = open_memstream(&text, &len);
	if (!f || !json_object_object_get_ex(settings, "trackers", &trackers))
		abort();
	fprintf(f, "trackers: {\n");
	json_object_object_foreach(trackers, name, group)
	{
		fprintf(f, "%s: {\n", name);
		json_object_object_foreach(group, setting, val)
		{
			char key[128];

			snprintf(key, sizeof(key), "trackers.%s.%s", name, setting);
			if (conf_literal(key, json_object_get_string(val), &literal) < 0)
				abort();
			fprintf(f, "%s = %s;\n", setting, literal);
			free(literal);
		}
		fprintf(f, "};\n");
	}
	fprintf(f, "};\n");
	fclose(f);
	if (conf_new_defaults(&again) < 0)
		abort();
	if (conf_parse_string(again, text, "round-trip", true, &diag) < 0) {
		for (size_t i = 0; i < diag.n; i++)
			fprintf(stderr, "%s\n", diag.lines[i]);
		fprintf(stderr, "%s", text);
		abort();
	}
	again_json = conf_to_json(again);
	if (!json_object_equal(json_object_object_get(again_json, "trackers"), trackers))
		abort();
	json_object_put(again_json);
	conf_free(again);
	conf_diag_clear(&diag);
	free(text);
	json_object_put(settings);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf_diag diag = {0};
	struct conf *c;
	char *text;
	int r;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	if (conf_new_defaults(&c) < 0)
		abort();
	r = conf_parse_string(c, text, "fuzz.conf", data[0] & 1, &diag);
	if (r < 0 && diag.n == 0)
		abort(); /* an error must always say what and where */
	if (r == 0) {
		json_object_put(conf_to_json(c));
		json_object_put(conf_origins_json(c));
		check_round_trip(c);
	}
	conf_diag_clear(&diag);
	conf_free(c);
	free(text);
	return 0;
}
