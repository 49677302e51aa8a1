/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fuzz target: the fleet's messages (proto/fleet.c) as a host receives them from the MQTT
 * broker, from any peer. The rest of the input is the payload, handed as is to the alert,
 * result or presence parser; a message accepted once must be written again by the matching
 * proto_fleet_*_new() and parse back to the same struct (what a host publishes, its peers
 * must read). The same bytes, NUL-terminated and cut to 200, go to the incident id parser
 * and the name and text checks.
 *
 * The first byte picks the conditions: bits 0-1 the parser (alert, result, presence, all
 * three), bits 2-7 the size of the reason buffer (0: 256 bytes, else 1 to 63).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TEXT_MAX 200

/* A char array of the struct must hold a terminated string, or the comparisons run on. */
#define TERMINATED(a) (memchr((a), 0, sizeof(a)) != NULL)

static void differ(const char *kind, const char *field, const char *text)
{
	fprintf(stderr, "fuzz-fleet: %s round trip: %s differs in\n%s\n", kind, field, text);
	abort();
}

#define SAME_STR(kind, x, y, f, text)                                                              \
	do {                                                                                       \
		if (!TERMINATED((x)->f) || !TERMINATED((y)->f) || strcmp((x)->f, (y)->f) != 0)     \
			differ(kind, #f, text);                                                    \
	} while (0)
#define SAME_NUM(kind, x, y, f, text)                                                              \
	do {                                                                                       \
		if ((x)->f != (y)->f)                                                              \
			differ(kind, #f, text);                                                    \
	} while (0)

static void reparse_failed(const char *kind, int r, const char *why, const char *text)
{
	fprintf(stderr, "fuzz-fleet: %s round trip: parse of our own text: %d (%s)\n%s\n", kind, r,
		why, text);
	abort();
}

static void check_alert(const uint8_t *p, size_t len, char *why, size_t whylen)
{
	struct proto_fleet_alert a, b;
	char *text = NULL, why2[256];
	int r;

	r = proto_fleet_alert_parse(p, len, &a, why, whylen);
	if (r < 0) {
		if (whylen > 1 && !why[0])
			abort(); /* a refusal must always say why */
		return;
	}
	if (proto_fleet_alert_new(&a, &text) < 0)
		abort();
	r = proto_fleet_alert_parse(text, strlen(text), &b, why2, sizeof(why2));
	if (r < 0)
		reparse_failed("alert", r, why2, text);
	SAME_STR("alert", &a, &b, host, text);
	SAME_STR("alert", &a, &b, group, text);
	SAME_STR("alert", &a, &b, boot_id, text);
	SAME_STR("alert", &a, &b, incident, text);
	SAME_STR("alert", &a, &b, tracker, text);
	SAME_STR("alert", &a, &b, comm, text);
	SAME_NUM("alert", &a, &b, tid, text);
	SAME_NUM("alert", &a, &b, delay_ns, text);
	SAME_NUM("alert", &a, &b, start_realtime_ns, text);
	SAME_NUM("alert", &a, &b, end_realtime_ns, text);
	SAME_NUM("alert", &a, &b, mono_to_realtime_ns, text);
	SAME_NUM("alert", &a, &b, sent_realtime_ns, text);
	free(text);
}

static void check_result(const uint8_t *p, size_t len, char *why, size_t whylen)
{
	struct proto_fleet_result a, b;
	char *text = NULL, why2[256];
	int r;

	r = proto_fleet_result_parse(p, len, &a, why, whylen);
	if (r < 0) {
		if (whylen > 1 && !why[0])
			abort();
		return;
	}
	if (a.n < 1 || a.n > PROTO_FLEET_RESULT_INCIDENTS || a.count < a.n)
		abort();
	if (proto_fleet_result_new(&a, &text) < 0)
		abort();
	r = proto_fleet_result_parse(text, strlen(text), &b, why2, sizeof(why2));
	if (r < 0)
		reparse_failed("result", r, why2, text);
	SAME_STR("result", &a, &b, host, text);
	SAME_STR("result", &a, &b, group, text);
	SAME_STR("result", &a, &b, status, text);
	SAME_NUM("result", &a, &b, n, text);
	for (size_t i = 0; i < a.n; i++)
		SAME_STR("result", &a, &b, incidents[i], text);
	SAME_NUM("result", &a, &b, count, text);
	SAME_STR("result", &a, &b, budget, text);
	SAME_STR("result", &a, &b, path, text);
	SAME_STR("result", &a, &b, reason, text);
	free(text);
}

static void check_presence(const uint8_t *p, size_t len, char *why, size_t whylen)
{
	struct proto_fleet_presence a, b;
	char *text = NULL, why2[256];
	int r;

	r = proto_fleet_presence_parse(p, len, &a, why, whylen);
	if (r < 0) {
		if (whylen > 1 && !why[0])
			abort();
		return;
	}
	if (proto_fleet_presence_new(&a, &text) < 0)
		abort();
	r = proto_fleet_presence_parse(text, strlen(text), &b, why2, sizeof(why2));
	if (r < 0)
		reparse_failed("presence", r, why2, text);
	SAME_STR("presence", &a, &b, host, text);
	SAME_STR("presence", &a, &b, group, text);
	SAME_STR("presence", &a, &b, boot_id, text);
	SAME_STR("presence", &a, &b, state, text);
	SAME_NUM("presence", &a, &b, since_realtime_ns, text);
	SAME_NUM("presence", &a, &b, every_s, text);
	free(text);
}

/* An incident id, a name, a text: an id accepted names a valid origin and a sequence that
 * proto_fleet_incident_format() writes back to the same. */
static void check_strings(const uint8_t *p, size_t len)
{
	char *s, origin[PROTO_FLEET_NAME_MAX + 1], again[PROTO_FLEET_INCIDENT_MAX + 1],
		origin2[PROTO_FLEET_NAME_MAX + 1];
	uint64_t seq, seq2;
	bool name;

	if (len > TEXT_MAX)
		len = TEXT_MAX;
	s = malloc(len + 1);
	if (!s)
		return;
	memcpy(s, p, len);
	s[len] = 0;
	if (proto_fleet_incident_parse(s, origin, sizeof(origin), &seq) == 0) {
		if (!proto_fleet_name_valid(origin) || seq == 0)
			abort();
		proto_fleet_incident_format(again, sizeof(again), origin, seq);
		if (proto_fleet_incident_parse(again, origin2, sizeof(origin2), &seq2) < 0 ||
		    strcmp(origin, origin2) != 0 || seq != seq2)
			abort();
	}
	/* Without an output it must decide the same. */
	if ((proto_fleet_incident_parse(s, NULL, 0, NULL) == 0) !=
	    (proto_fleet_incident_parse(s, origin, sizeof(origin), &seq) == 0))
		abort();
	name = proto_fleet_name_valid(s);
	if (name && (!proto_fleet_text_valid(s) || strlen(s) > PROTO_FLEET_NAME_MAX))
		abort(); /* every name is also a text that may be shown */
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t whylen, len;
	const uint8_t *p;
	char *why;

	if (size < 1)
		return 0;
	p = data + 1;
	len = size - 1;
	whylen = data[0] >> 2 ? data[0] >> 2 : 256;
	/* Exactly whylen bytes: a reason written past its buffer is an ASan report. */
	why = malloc(whylen);
	if (!why)
		return 0;
	why[0] = 0;
	switch (data[0] & 3) {
	case 0:
		check_alert(p, len, why, whylen);
		break;
	case 1:
		check_result(p, len, why, whylen);
		break;
	case 2:
		check_presence(p, len, why, whylen);
		break;
	default:
		check_alert(p, len, why, whylen);
		why[0] = 0;
		check_result(p, len, why, whylen);
		why[0] = 0;
		check_presence(p, len, why, whylen);
		break;
	}
	free(why);
	check_strings(p, len);
	return 0;
}
