/* SPDX-License-Identifier: GPL-2.0-only */
/* The checks of fleet_wire.h's records, on each side of the socketpair. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fleet_wire.h"
#include "thread.h"

#define TERMINATED(a) (memchr((a), 0, sizeof(a)) != NULL)

static bool name_ok(const char *s, size_t size)
{
	return memchr(s, 0, size) && proto_fleet_name_valid(s);
}

static bool text_ok(const char *s, size_t size)
{
	return memchr(s, 0, size) && proto_fleet_text_valid(s);
}

static bool incident_ok(const char *s, size_t size, char *origin, size_t osize)
{
	return memchr(s, 0, size) && proto_fleet_incident_parse(s, origin, osize, NULL) == 0;
}

static bool alert_ok(const struct proto_fleet_alert *a, char *origin, size_t osize)
{
	return name_ok(a->host, sizeof(a->host)) && name_ok(a->group, sizeof(a->group)) &&
	       text_ok(a->boot_id, sizeof(a->boot_id)) && name_ok(a->tracker, sizeof(a->tracker)) &&
	       text_ok(a->comm, sizeof(a->comm)) &&
	       incident_ok(a->incident, sizeof(a->incident), origin, osize);
}

/* All of R's incidents of one origin, ORIGIN if given; that origin into ONE. */
static bool result_ok(const struct proto_fleet_result *r, const char *origin, char *one,
		      size_t onesize)
{
	if (!name_ok(r->host, sizeof(r->host)) || !name_ok(r->group, sizeof(r->group)) ||
	    !TERMINATED(r->status) || !proto_fleet_status_valid(r->status) ||
	    !TERMINATED(r->budget) || !proto_fleet_budget_valid(r->budget) || r->n < 1 ||
	    r->n > PROTO_FLEET_RESULT_INCIDENTS || r->count < r->n || !TERMINATED(r->path) ||
	    (r->path[0] && !proto_fleet_text_valid(r->path)) || !TERMINATED(r->reason) ||
	    (r->reason[0] && !proto_fleet_text_valid(r->reason)))
		return false;
	for (size_t i = 0; i < r->n; i++) {
		char o[PROTO_FLEET_NAME_MAX + 1];

		if (!incident_ok(r->incidents[i], sizeof(r->incidents[i]), o, sizeof(o)))
			return false;
		if (!origin) { /* the first incident's is the one */
			snprintf(one, onesize, "%s", o);
			origin = one;
		}
		if (strcmp(o, origin) != 0)
			return false;
	}
	return true;
}

static bool every_ok(uint32_t every_s)
{
	return every_s >= PROTO_FLEET_EVERY_MIN_S && every_s <= PROTO_FLEET_EVERY_MAX_S;
}

/* every_s 0: a member that renews nothing (proto/fleet.h). */
static bool presence_ok(const struct proto_fleet_presence *p)
{
	return name_ok(p->host, sizeof(p->host)) && name_ok(p->group, sizeof(p->group)) &&
	       text_ok(p->boot_id, sizeof(p->boot_id)) && TERMINATED(p->state) &&
	       (strcmp(p->state, PROTO_FLEET_ONLINE) == 0 ||
		strcmp(p->state, PROTO_FLEET_OFFLINE) == 0) &&
	       (p->every_s == 0 || every_ok(p->every_s));
}

static bool status_ok(const struct fleet_status *st)
{
	return TERMINATED(st->broker) && TERMINATED(st->host) && TERMINATED(st->group) &&
	       text_ok(st->detail, sizeof(st->detail)) && TERMINATED(st->user);
}

bool fleet_wire_event_check(const struct fleet_wire_event *e, size_t len, const char *host,
			    const char *group, char *why, size_t whylen)
{
	const struct fleet_event *ev = &e->ev;
	char origin[PROTO_FLEET_NAME_MAX + 1];
	const char *bad = NULL;

	if (len != sizeof(*e) || e->type != FLEET_WIRE_EVENT)
		bad = "not an event record";
	else if (!status_ok(&e->st))
		bad = "its status is not text";
	else if (!text_ok(ev->detail, sizeof(ev->detail)) || !TERMINATED(ev->budget))
		bad = "its detail is not text";
	if (bad)
		goto out;
	switch (ev->kind) {
	case FLEET_WIRE_ACK:
		if (e->seq == 0 || (e->rc != 0 && e->rc != -EIO && e->rc != -ENOTCONN &&
				    e->rc != -ENOMEM && e->rc != -ENOBUFS))
			bad = "a publish's outcome without its request or of no known kind";
		break;
	case FLEET_WIRE_COUNTERS:
	case FLEET_WIRE_HEARTBEAT:
	case FLEET_CONNECTED:
	case FLEET_DISCONNECTED:
	case FLEET_ERROR:
		break;
	case FLEET_RESULT:
		if (!result_ok(&ev->result, host, NULL, 0) || strcmp(ev->result.group, group) != 0)
			bad = "a result that does not pass the protocol's checks, or not about "
			      "this host's incidents";
		break;
	case FLEET_PEER_ALERT:
	case FLEET_UNANSWERED:
		if (!alert_ok(&ev->alert, origin, sizeof(origin)))
			bad = "an alert that does not pass the protocol's checks";
		else if (strcmp(ev->alert.group, group) != 0 || strcmp(ev->alert.host, host) == 0 ||
			 strcmp(origin, ev->alert.host) != 0)
			bad = "an alert of another group, of this host, or not its sender's "
			      "incident";
		/* Both processes read the one CLOCK_MONOTONIC: a receipt after now, or none, is
		 * a lie, which would become the cause's time in the catalog. */
		else if (ev->received_ns > now_ns())
			bad = "an alert received later than now (received_ns in the future)";
		else if (ev->received_ns == 0)
			bad = "an alert with no receipt time (received_ns 0)";
		break;
	case FLEET_PRESENCE:
		if (!presence_ok(&ev->presence) || strcmp(ev->presence.group, group) != 0)
			bad = "a presence that does not pass the protocol's checks";
		break;
	default:
		bad = "an unknown kind of event";
	}
out:
	if (bad)
		snprintf(why, whylen, "%s", bad);
	return !bad;
}

bool fleet_wire_request_check(const struct fleet_wire_request *q, size_t len)
{
	char origin[PROTO_FLEET_NAME_MAX + 1];

	if (len != sizeof(*q))
		return false;
	if (q->type == FLEET_WIRE_STOP)
		return true;
	if (q->type == FLEET_WIRE_FORGET)
		return q->seq != 0;
	if (q->type == FLEET_WIRE_PUBLISH_ALERT)
		return q->seq != 0 && alert_ok(&q->alert, origin, sizeof(origin)) &&
		       strcmp(origin, q->alert.host) == 0;
	/* For one origin's incidents, another host's: a result goes to its origin only. */
	return q->type == FLEET_WIRE_PUBLISH_RESULT &&
	       result_ok(&q->result, NULL, origin, sizeof(origin)) &&
	       strcmp(origin, q->result.host) != 0;
}

bool fleet_wire_settings_check(const struct fleet_wire_settings *s, size_t len)
{
	return len == sizeof(*s) && s->type == FLEET_WIRE_SETTINGS && TERMINATED(s->user) &&
	       s->user[0] && name_ok(s->host, sizeof(s->host)) &&
	       name_ok(s->group, sizeof(s->group)) && name_ok(s->prefix, sizeof(s->prefix)) &&
	       TERMINATED(s->boot_id) && TERMINATED(s->broker) && TERMINATED(s->broker_host) &&
	       s->broker_host[0] && s->port > 0 && s->port < 65536 && TERMINATED(s->username) &&
	       TERMINATED(s->password) && TERMINATED(s->ca_file) && TERMINATED(s->cert_file) &&
	       TERMINATED(s->key_file) && s->max_age_ns > 0 && every_ok(s->presence_every_s);
}

bool fleet_said_new(struct fleet_said *s, const char *why)
{
	for (unsigned i = 0; i < FLEET_SAID_MAX; i++)
		if (strncmp(s->text[i], why, sizeof(s->text[i]) - 1) == 0 && s->text[i][0])
			return false;
	snprintf(s->text[s->next], sizeof(s->text[s->next]), "%s", why);
	s->next = (s->next + 1) % FLEET_SAID_MAX;
	return true;
}

void fleet_said_clear(struct fleet_said *s)
{
	memset(s, 0, sizeof(*s));
}

bool fleet_wire_stale(const struct proto_fleet_alert *a, uint64_t max_age_ns)
{
	return proto_fleet_alert_stale(a, realtime_ns(), max_age_ns);
}
