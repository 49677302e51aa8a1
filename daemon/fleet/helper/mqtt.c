/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet's MQTT client, in latencyd-fleet (mqtt.h): the connection and its network
 * thread, the subscriptions, this host's presence and what it publishes. A request is
 * bounded in time: an alert leaves with its expiry, and one that arrives older than
 * fleet.max_age by this host's clock is stale, never handed on for recording. What arrives
 * is checked in inbound.c, a bad message counted and dropped there (latencyd checks what
 * passes again); records.c tells latencyd.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mosquitto.h>
#include <mqtt_protocol.h>

#include "mqtt_internal.h"
#include "thread.h"

static int presence_text(struct mqtt *m, const char *state, char **text)
{
	struct proto_fleet_presence p = {.since_realtime_ns = m->s->since_realtime_ns,
					 .every_s = m->s->presence_every_s};

	snprintf(p.host, sizeof(p.host), "%s", m->s->host);
	snprintf(p.group, sizeof(p.group), "%s", m->s->group);
	snprintf(p.boot_id, sizeof(p.boot_id), "%s", m->s->boot_id);
	snprintf(p.state, sizeof(p.state), "%s", state);
	return proto_fleet_presence_new(&p, text);
}

static int topic(const struct mqtt *m, char *buf, const char *kind, const char *host)
{
	return proto_fleet_topic(buf, TOPIC_MAX, m->s->prefix, m->s->group, kind, host);
}

/*
 * Every presence expires (MQTT v5) PROTO_FLEET_PRESENCE_LAPSE renewals after it is sent: a
 * broker that kept a dead member's "online" (restored from its persistence after a crash,
 * when no will went out) drops it by itself. The offline one too, the will included: it is
 * news only to those connected as it goes out, and a host that connects later never knew
 * the member was online; retained for ever, it would only pile up, one per host name ever
 * used in the group.
 */
static int presence_expiry(const struct mqtt *m, mosquitto_property **props)
{
	return mosquitto_property_add_int32(props, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL,
					    PROTO_FLEET_PRESENCE_LAPSE * m->s->presence_every_s);
}

/*
 * Whether the connection is up, for a publish under pub_lock: on_disconnect() takes pub_lock
 * after it clears st.connected, so the reconnection, which libmosquitto starts after that
 * callback by resetting its queue (lib/connect.c: message__reconnect_reset()), cannot begin
 * until a publish that saw it up has returned.
 */
static bool connected(struct mqtt *m)
{
	bool up;

	pthread_mutex_lock(&m->lock);
	up = m->st.connected;
	pthread_mutex_unlock(&m->lock);
	return up;
}

/* Whether one of our presences awaits its PUBACK (under pub_lock). */
static bool presence_pending(const struct mqtt *m)
{
	for (int i = 0; i < PRESENCE_MIDS; i++)
		if (m->presence_mid[i])
			return true;
	return false;
}

/*
 * Retained: a host that starts later learns who the members are from the broker.
 *
 * An online one is skipped while an earlier presence awaits its PUBACK (a frozen broker, a
 * connection lost): that one says the same once it gets through, and presence_mid[] never
 * holds more than one online and the offline one at the end. libmosquitto (2.0) keeps an
 * unacked QoS 1 message, with its mid, across reconnections, clean session or not, and sends
 * it again after the CONNACK (lib/messages_mosq.c: message__reconnect_reset(),
 * message__retry_check()); a mid forgotten would have its PUBACK counted as a request's.
 * For that reason too a mid is kept when the publish says MOSQ_ERR_NO_CONN: the message is
 * queued all the same, for the next connection (mqtt_publish()). The PUBACK that clears the
 * last pending one makes the skipped renewal due at once (on_publish()). A RENEWAL is
 * dropped once the connection is gone, under pub_lock as a request is: on_connect() sends a
 * presence of its own.
 */
static void publish_presence(struct mqtt *m, const char *state, bool renewal)
{
	bool online = strcmp(state, PROTO_FLEET_ONLINE) == 0;
	mosquitto_property *props = NULL;
	char t[TOPIC_MAX], *text = NULL;

	if (topic(m, t, PROTO_FLEET_TOPIC_PRESENCE, m->s->host) == 0 &&
	    presence_text(m, state, &text) == 0 && presence_expiry(m, &props) == MOSQ_ERR_SUCCESS) {
		int mid = 0, r;

		pthread_mutex_lock(&m->pub_lock);
		if (online && presence_pending(m)) {
			m->presence_skipped = true;
		} else if (!renewal || connected(m)) {
			r = mosquitto_publish_v5(m->mosq, &mid, t, (int)strlen(text), text, 1, true,
						 props);
			if (r == MOSQ_ERR_SUCCESS || r == MOSQ_ERR_NO_CONN)
				m->presence_mid[m->presence_next++ % PRESENCE_MIDS] = mid;
		}
		pthread_mutex_unlock(&m->pub_lock);
	}
	mosquitto_property_free_all(&props);
	free(text);
}

int mqtt_renew(struct mqtt *m)
{
	uint64_t now = now_ns(), every = (uint64_t)m->s->presence_every_s * 1000000000, left;
	bool due, skipped;

	pthread_mutex_lock(&m->pub_lock);
	skipped = m->presence_skipped;
	pthread_mutex_unlock(&m->pub_lock);
	pthread_mutex_lock(&m->lock);
	due = m->st.connected && !m->stopping && now >= m->presence_due_ns;
	if (due)
		m->presence_due_ns = now + every;
	left = m->st.connected && m->presence_due_ns > now ? m->presence_due_ns - now : every;
	/* A renewal skipped goes out as soon as the PUBACK it waits for comes. */
	if (skipped && m->st.connected && left > RENEW_RETRY_NS)
		left = RENEW_RETRY_NS;
	pthread_mutex_unlock(&m->lock);
	if (due)
		publish_presence(m, PROTO_FLEET_ONLINE, true);
	return (int)((left + 999999) / 1000000);
}

/*
 * The broker's PUBACK (QoS 1): only now did a request go out, and only now is it counted
 * published. A reason code of 0x80 or more is the broker's refusal (an ACL under MQTT v5).
 * An alert's outcome goes to latencyd, whose outbox keeps the alert until then.
 */
static void on_publish(struct mosquitto *mosq, void *userdata, int mid, int reason,
		       const mosquitto_property *props)
{
	struct mqtt *m = userdata;
	bool presence = false, renew = false;
	uint64_t *counter;
	uint32_t seq = 0;

	(void)mosq;
	(void)props;
	pthread_mutex_lock(&m->pub_lock);
	for (int i = 0; i < PRESENCE_MIDS; i++)
		if (m->presence_mid[i] == mid) {
			m->presence_mid[i] = 0;
			presence = true;
		}
	if (!presence && m->unacked)
		m->unacked--;
	for (int i = 0; i < ALERT_MIDS && !presence && !seq; i++)
		if (m->alert_mid[i].mid == mid) {
			seq = m->alert_mid[i].seq;
			m->alert_mid[i].mid = 0;
		}
	/* Peers time this host from the presence this PUBACK is for, or an earlier one: the
	 * renewal skipped meanwhile must not wait a period more. */
	if (presence && m->presence_skipped && !presence_pending(m)) {
		m->presence_skipped = false;
		renew = true;
	}
	pthread_mutex_unlock(&m->pub_lock);
	if (renew) {
		pthread_mutex_lock(&m->lock);
		m->presence_due_ns = 0;
		pthread_mutex_unlock(&m->lock);
	}
	counter = reason >= 0x80 ? &m->st.publish_failed : &m->st.published;
	if (seq)
		mqtt_ack(m, seq, reason >= 0x80 ? -EIO : 0, counter);
	else if (!presence)
		mqtt_count(m, counter);
}

/* The group's alerts and presences, and the results for this host's own incidents. */
#define SUBSCRIPTIONS 3
static int subscription(const struct mqtt *m, int i, char *t)
{
	if (i == 0)
		return topic(m, t, PROTO_FLEET_TOPIC_ALERT, "+");
	if (i == 1)
		return topic(m, t, PROTO_FLEET_TOPIC_PRESENCE, "+");
	return proto_fleet_result_topic(t, TOPIC_MAX, m->s->prefix, m->s->group, m->s->host, "+");
}

static int subscribe(struct mqtt *m)
{
	char t[SUBSCRIPTIONS][TOPIC_MAX];
	char *subs[SUBSCRIPTIONS];

	for (int i = 0; i < SUBSCRIPTIONS; i++) {
		if (subscription(m, i, t[i]) < 0)
			return -ENAMETOOLONG;
		subs[i] = t[i];
	}
	/*
	 * QoS 0: the session is clean, so a QoS 1 delivery would never be sent again after a
	 * disconnection either; it would only cost the broker a PUBACK to wait for, from
	 * every member, for every message. (The origin publishes at QoS 1: the broker's
	 * PUBACK says the request went out.)
	 */
	return mosquitto_subscribe_multiple(m->mosq, NULL, SUBSCRIPTIONS, subs, 0, 0, NULL);
}

/*
 * Closes the connection for WHY, which on_disconnect() says: run() makes it again after the
 * backoff.
 */
static void drop(struct mqtt *m, const char *why)
{
	pthread_mutex_lock(&m->lock);
	snprintf(m->drop_why, sizeof(m->drop_why), "%s", why);
	pthread_mutex_unlock(&m->lock);
	mosquitto_disconnect(m->mosq);
}

static void on_connect(struct mosquitto *mosq, void *userdata, int rc)
{
	struct mqtt *m = userdata;
	int r;

	if (rc != 0) {
		/* MQTT v5 reason codes: "Bad user name or password", "Not authorized"... */
		char why[160];

		snprintf(why, sizeof(why), "the broker refused the connection: %s",
			 mosquitto_reason_string(rc));
		pthread_mutex_lock(&m->lock);
		m->attempt_said = true;
		pthread_mutex_unlock(&m->lock);
		mqtt_problem(m, FLEET_DISCONNECTED, why);
		return;
	}
	(void)mosq;
	pthread_mutex_lock(&m->lock);
	m->drop_why[0] = 0;
	pthread_mutex_unlock(&m->lock);
	/*
	 * One SUBSCRIBE of three topics: one SUBACK to check, awaited SUBACK_TIMEOUT_SEC
	 * (check_suback()). One that cannot be sent (the broker's maximum packet size, the
	 * connection gone) closes the connection for the reconnection to try again: connected
	 * without subscriptions, this host would hear nothing, and say nothing of it.
	 */
	r = subscribe(m);
	if (r != MOSQ_ERR_SUCCESS) {
		char why[160];

		snprintf(why, sizeof(why), "cannot subscribe to the group's topics: %s",
			 r < 0 ? strerror(-r) : mosquitto_strerror(r));
		drop(m, why);
		return;
	}
	/* A presence still pending from an earlier connection goes out again after this, in
	 * its place (publish_presence()). */
	publish_presence(m, PROTO_FLEET_ONLINE, false);
	pthread_mutex_lock(&m->lock);
	m->up_ns = now_ns();
	m->suback_due_ns = m->up_ns + (uint64_t)SUBACK_TIMEOUT_SEC * 1000000000;
	m->presence_due_ns = m->up_ns + (uint64_t)m->s->presence_every_s * 1000000000;
	m->st.connected = true;
	m->st.detail[0] = 0;
	fleet_said_clear(&m->said);
	pthread_mutex_unlock(&m->lock);
	mqtt_event(m, FLEET_CONNECTED, m->s->broker);
}

static void on_subscribe(struct mosquitto *mosq, void *userdata, int mid, int n, const int *granted)
{
	struct mqtt *m = userdata;
	char t[TOPIC_MAX], why[160];
	int refused = n >= SUBSCRIPTIONS ? -1 : 0x80, which = 0; /* 0x80 and above: refused */

	(void)mosq;
	(void)mid;
	for (int i = 0; i < SUBSCRIPTIONS && refused < 0; i++)
		if (granted[i] >= 0x80) {
			refused = granted[i];
			which = i;
		}
	pthread_mutex_lock(&m->lock);
	m->st.subscribed = refused < 0;
	m->suback_due_ns = 0;
	pthread_mutex_unlock(&m->lock);
	if (refused < 0) {
		mqtt_event(m, FLEET_WIRE_COUNTERS, NULL);
		return;
	}
	subscription(m, which, t);
	snprintf(why, sizeof(why), "the broker refused the subscription to %.64s (%.40s)", t,
		 mosquitto_reason_string(refused));
	mqtt_problem(m, FLEET_ERROR, why);
}

/*
 * Why the connection ended: libmosquitto's error, or the reason code of the broker's MQTT
 * v5 DISCONNECT (0x80 and above). Session taken over (0x8E): another client connected with
 * this host's client id, which a broker without use_username_as_clientid lets any account
 * do (README, Broker).
 */
static const char *disconnect_reason(int rc, char *buf, size_t size)
{
	if (rc == 0)
		return "disconnected";
	if (rc == MQTT_RC_SESSION_TAKEN_OVER)
		return "session taken over: another client uses this host's client id";
	if (rc < 0x80)
		return mosquitto_strerror(rc);
	snprintf(buf, size, "the broker disconnected this client: %s (reason %#x)",
		 mosquitto_reason_string(rc), (unsigned)rc);
	return buf;
}

/*
 * How long the connection lasted (under lock): only one that stayed up STABLE_AFTER_SEC
 * starts the backoff again from RECONNECT_MIN_SEC. A broker closes a session as soon as
 * another client connects with its client id (two hosts with one fleet.host, or one broker
 * account under use_username_as_clientid): a backoff started again at each CONNACK (as
 * libmosquitto's is) would have both reconnect every second for ever, each taking the
 * other's session. The count of such connections in a row once it reaches
 * SHORT_LIVED_SAY, the first time; else 0.
 */
static unsigned lasted(struct mqtt *m, uint64_t up_ns)
{
	if (up_ns >= (uint64_t)STABLE_AFTER_SEC * 1000000000) {
		m->backoff_sec = RECONNECT_MIN_SEC;
		m->short_lived = 0;
		m->clientid_said = false;
		return 0;
	}
	m->short_lived = up_ns < (uint64_t)SHORT_LIVED_SEC * 1000000000 ? m->short_lived + 1 : 0;
	if (m->short_lived < SHORT_LIVED_SAY || m->clientid_said)
		return 0;
	m->clientid_said = true;
	return m->short_lived;
}

static void on_disconnect(struct mosquitto *mosq, void *userdata, int rc,
			  const mosquitto_property *props)
{
	struct mqtt *m = userdata;
	bool was, said, stopping;
	uint64_t unacked;
	unsigned in_a_row = 0;
	char why[320], reason[96], dropped[sizeof(m->drop_why)];

	(void)mosq;
	(void)props;
	pthread_mutex_lock(&m->lock);
	was = m->st.connected;
	if (was)
		m->st.reconnects++;
	m->st.connected = false;
	m->st.subscribed = false;
	m->closed = m->stopping;
	stopping = m->stopping;
	said = m->attempt_said;
	m->attempt_said = false;
	m->tls_named = false;
	m->suback_due_ns = 0;
	snprintf(dropped, sizeof(dropped), "%s", m->drop_why);
	m->drop_why[0] = 0;
	/* The broker's doing only: one we close (drop()) says nothing of another client. */
	if (was && !stopping && !dropped[0])
		in_a_row = lasted(m, now_ns() - m->up_ns);
	pthread_mutex_unlock(&m->lock);
	/* After st.connected is cleared, not before: a publish that saw it set has returned by
	 * then, and is counted (connected()). */
	pthread_mutex_lock(&m->pub_lock);
	unacked = m->unacked;
	pthread_mutex_unlock(&m->pub_lock);
	if (dropped[0] && !stopping && !was) {
		mqtt_problem(m, FLEET_DISCONNECTED, dropped);
		return;
	}
	if (in_a_row) {
		snprintf(why, sizeof(why),
			 "the broker closed the connection %u times within %d s of accepting it: "
			 "another client probably uses the client id latencyd-%s (fleet.host)",
			 in_a_row, SHORT_LIVED_SEC, m->s->host);
		mqtt_problem(m, FLEET_DISCONNECTED, why);
		return;
	}
	if (was) {
		const char *how =
			dropped[0] ? dropped : disconnect_reason(rc, reason, sizeof(reason));

		/*
		 * The clean start does not drop them: libmosquitto sends them again after the
		 * next CONNACK (message__retry_check()), and a PUBACK then counts them. A receiver
		 * judges an alert that comes late by its end (publish_request()).
		 */
		if (unacked && !stopping)
			snprintf(why, sizeof(why),
				 "%s; %" PRIu64 " publish(es) not acknowledged by the broker, to "
				 "be sent again on reconnecting",
				 how, unacked);
		else
			snprintf(why, sizeof(why), "%s", how);
		mqtt_problem(m, FLEET_DISCONNECTED, why);
		return;
	}
	/*
	 * Not connected yet, and neither a refused CONNACK nor libmosquitto said why: the
	 * other end took the connection and never answered the CONNECT (not an MQTT
	 * listener), or closed it (a TLS listener spoken to without TLS). Status would say
	 * "connecting" for ever, and the log nothing.
	 */
	if (said || stopping || rc == 0)
		return;
	if (rc == MOSQ_ERR_KEEPALIVE)
		snprintf(why, sizeof(why),
			 "the broker did not answer the connection within %d s (not an MQTT "
			 "listener?)",
			 KEEPALIVE_SEC);
	else
		snprintf(why, sizeof(why),
			 "the broker closed the connection before accepting it (%s)%s",
			 mosquitto_strerror(rc),
			 m->s->tls ? "" : ": a TLS listener needs mqtts://");
	mqtt_problem(m, FLEET_DISCONNECTED, why);
}

/*
 * Why the broker's certificate was rejected, when libmosquitto says: "host name verification
 * failed" for its own check, which its "certificate verify failed" then follows. Other
 * causes (an unknown CA, an expired certificate) only OpenSSL's verdict tells, which is not
 * linked in here (GPL-2.0-only code). A listener without TLS, spoken to with mqtts://, takes
 * the ClientHello for a bad MQTT packet and closes the connection: OpenSSL's "unexpected eof
 * while reading" (or "wrong version number" when a reply came) names the symptom, not the
 * cause, the counterpart of on_disconnect()'s hint. False if the line names no cause.
 */
static bool tls_reason(struct mqtt *m, const char *text, char *why, size_t whylen)
{
	if (!m->s->tls)
		return false;
	if (strstr(text, "host name verification failed")) {
		snprintf(why, whylen,
			 "TLS: the broker's certificate is not for %.64s (host name mismatch)",
			 m->s->broker_host);
		return true;
	}
	if (strstr(text, "unexpected eof while reading") || strstr(text, "wrong version number")) {
		snprintf(why, whylen,
			 "TLS: the broker did not answer the handshake (%s): a listener "
			 "without TLS, if it is one, needs mqtt://",
			 strstr(text, "wrong") ? "wrong version number" : "unexpected eof");
		return true;
	}
	return false;
}

/*
 * libmosquitto's own words on what failed (TLS, DNS, a refused connect): kept for status,
 * unless a TLS cause was named in this attempt, which a later, vaguer line must not hide.
 */
static void on_log(struct mosquitto *mosq, void *userdata, int level, const char *text)
{
	struct mqtt *m = userdata;
	char why[160];
	bool connected, named, keep;

	(void)mosq;
	if (!(level & MOSQ_LOG_ERR) || !text)
		return;
	named = tls_reason(m, text, why, sizeof(why));
	pthread_mutex_lock(&m->lock);
	connected = m->st.connected;
	keep = m->tls_named;
	if (!connected) {
		m->attempt_said = true;
		m->tls_named = keep || named;
	}
	pthread_mutex_unlock(&m->lock);
	if (connected || keep)
		return;
	if (!named)
		snprintf(why, sizeof(why), "%s", text);
	for (char *p = why; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = ' ';
	mqtt_problem(m, FLEET_DISCONNECTED, why);
}

/* Retained, so that every member learns that this host went away without a word; it
 * expires as every presence does (presence_expiry()). */
static int set_will(struct mqtt *m, char *why, size_t whylen)
{
	mosquitto_property *props = NULL;
	char t[TOPIC_MAX], *text = NULL;
	int r;

	if (topic(m, t, PROTO_FLEET_TOPIC_PRESENCE, m->s->host) < 0 ||
	    presence_text(m, PROTO_FLEET_OFFLINE, &text) < 0)
		return -ENOMEM;
	r = presence_expiry(m, &props);
	if (r == MOSQ_ERR_SUCCESS)
		r = mosquitto_will_set_v5(m->mosq, t, (int)strlen(text), text, 1, true, props);
	free(text);
	if (r != MOSQ_ERR_SUCCESS) {
		mosquitto_property_free_all(&props); /* libmosquitto's only once it took them */
		return snprintf(why, whylen, "cannot set the last will: %s", mosquitto_strerror(r)),
		       -EINVAL;
	}
	return 0;
}

/* libmosquitto only says "invalid" for a file it cannot read: say which, and as whom. */
static int readable(const char *key, const char *path, const char *user, char *why, size_t whylen)
{
	FILE *fp;

	if (!path[0])
		return 0;
	fp = fopen(path, "re");
	if (fp) {
		fclose(fp);
		return 0;
	}
	snprintf(why, whylen, "fleet.%s %s: %s (the fleet process runs as %s)", key, path,
		 strerror(errno), user);
	return -EACCES;
}

static int setup_tls(struct mqtt *m, const char *user, char *why, size_t whylen)
{
	const struct fleet_wire_settings *s = m->s;
	int r;

	if (!s->tls && !s->ca_file[0] && !s->cert_file[0])
		return 0;
	if (readable("ca_file", s->ca_file, user, why, whylen) < 0 ||
	    readable("cert_file", s->cert_file, user, why, whylen) < 0 ||
	    readable("key_file", s->key_file, user, why, whylen) < 0)
		return -EACCES;
	r = mosquitto_tls_set(
		m->mosq, s->ca_file[0] ? s->ca_file : NULL, s->ca_file[0] ? NULL : "/etc/ssl/certs",
		s->cert_file[0] ? s->cert_file : NULL, s->key_file[0] ? s->key_file : NULL, NULL);
	if (r != MOSQ_ERR_SUCCESS) {
		snprintf(why, whylen, "fleet.ca_file, cert_file, key_file: %s",
			 mosquitto_strerror(r));
		return -EINVAL;
	}
	return 0;
}

static int setup(struct mqtt *m, const char *user, char *why, size_t whylen)
{
	const struct fleet_wire_settings *s = m->s;
	char id[PROTO_FLEET_NAME_MAX + 16];
	int r;

	snprintf(id, sizeof(id), "latencyd-%s", s->host);
	m->mosq = mosquitto_new(id, true, m);
	if (!m->mosq)
		return snprintf(why, whylen, "cannot make an MQTT client"), -ENOMEM;
	/* v5: message expiry, so that a broker never delivers a request past its bound. */
	mosquitto_int_option(m->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
	/* An alert goes out at once, never held behind a packet not yet acknowledged (Nagle). */
	mosquitto_int_option(m->mosq, MOSQ_OPT_TCP_NODELAY, 1);
	mosquitto_connect_callback_set(m->mosq, on_connect);
	mosquitto_disconnect_v5_callback_set(m->mosq, on_disconnect);
	mosquitto_message_callback_set(m->mosq, mqtt_on_message);
	mosquitto_subscribe_callback_set(m->mosq, on_subscribe);
	mosquitto_log_callback_set(m->mosq, on_log);
	mosquitto_publish_v5_callback_set(m->mosq, on_publish);
	if (s->username[0] || s->password[0]) {
		r = mosquitto_username_pw_set(m->mosq, s->username[0] ? s->username : NULL,
					      s->password[0] ? s->password : NULL);
		if (r != MOSQ_ERR_SUCCESS)
			return snprintf(why, whylen, "fleet.username: %s", mosquitto_strerror(r)),
			       -EINVAL;
	}
	r = setup_tls(m, user, why, whylen);
	return r < 0 ? r : set_will(m, why, whylen);
}

/*
 * Our Maximum Packet Size (MQTT v5), in each CONNECT: a peer may publish up to 256 MB, and
 * libmosquitto allocates and reads a whole packet before any check of ours (packet__read()
 * has no limit for a client). A conforming broker drops a larger message for this client
 * instead of sending it; a broker without message_size_limit stays safe for us.
 */
_Static_assert(PROTO_FLEET_PACKET_MAX >= PROTO_FLEET_MAX + TOPIC_MAX + 64,
	       "a valid message, its topic and its headers fit in the packet asked for");
static int connect_properties(struct mqtt *m, char *why, size_t whylen)
{
	int r = mosquitto_property_add_int32(&m->connect_props, MQTT_PROP_MAXIMUM_PACKET_SIZE,
					     PROTO_FLEET_PACKET_MAX);

	if (r != MOSQ_ERR_SUCCESS)
		return snprintf(why, whylen, "cannot set the maximum packet size: %s",
				mosquitto_strerror(r)),
		       -ENOMEM;
	return 0;
}

/* The backoff's wait counts in CLOCK_MONOTONIC: a wall-clock step must not stretch it. */
static int cond_init_monotonic(pthread_cond_t *c)
{
	pthread_condattr_t attr;
	int r;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	r = pthread_cond_init(c, &attr);
	pthread_condattr_destroy(&attr);
	return r;
}

int mqtt_new(const struct fleet_wire_settings *s, int event_fd, const char *user, struct mqtt **ret,
	     char *why, size_t whylen)
{
	struct mqtt *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	*ret = m;
	m->s = s;
	m->event_fd = event_fd;
	m->backoff_sec = RECONNECT_MIN_SEC;
	r = pthread_mutex_init(&m->lock, NULL);
	if (r || (r = pthread_mutex_init(&m->send_lock, NULL)) ||
	    (r = pthread_mutex_init(&m->pub_lock, NULL)) || (r = cond_init_monotonic(&m->wake)))
		return -r;
	snprintf(m->st.broker, sizeof(m->st.broker), "%s", s->broker);
	snprintf(m->st.host, sizeof(m->st.host), "%s", s->host);
	snprintf(m->st.group, sizeof(m->st.group), "%s", s->group);
	snprintf(m->st.user, sizeof(m->st.user), "%s", user);
	snprintf(m->st.detail, sizeof(m->st.detail), "connecting");
	mosquitto_lib_init();
	r = setup(m, user, why, whylen);
	return r < 0 ? r : connect_properties(m, why, whylen);
}

static void new_attempt(struct mqtt *m)
{
	pthread_mutex_lock(&m->lock);
	m->tls_named = false;
	pthread_mutex_unlock(&m->lock);
}

/*
 * Before the next attempt: the backoff, doubled for the one after, cut short by
 * mqtt_free(). False once stopping.
 */
static bool backoff(struct mqtt *m)
{
	struct timespec until;
	bool stop;

	/* mqtt_free() may cancel us elsewhere, never holding the lock. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&m->lock);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += m->backoff_sec;
	m->backoff_sec =
		m->backoff_sec * 2 > RECONNECT_MAX_SEC ? RECONNECT_MAX_SEC : m->backoff_sec * 2;
	while (!m->stopping && pthread_cond_timedwait(&m->wake, &m->lock, &until) == 0)
		;
	stop = m->stopping;
	pthread_mutex_unlock(&m->lock);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	return !stop;
}

/*
 * No SUBACK within SUBACK_TIMEOUT_SEC of the CONNACK: the connection is made again, rather
 * than kept up without subscriptions, hearing nothing.
 */
static void check_suback(struct mqtt *m)
{
	char why[160];
	bool late;

	pthread_mutex_lock(&m->lock);
	late = m->suback_due_ns && now_ns() >= m->suback_due_ns;
	if (late)
		m->suback_due_ns = 0;
	pthread_mutex_unlock(&m->lock);
	if (!late)
		return;
	snprintf(why, sizeof(why),
		 "the broker did not acknowledge the subscriptions within %d s (no SUBACK)",
		 SUBACK_TIMEOUT_SEC);
	drop(m, why);
}

/*
 * The network thread, and every reconnection, after the backoff (backoff(), lasted()).
 * libmosquitto's own (mosquitto_loop_forever()) is not used: it waits 1 s after a
 * connection the broker closed, whatever its own backoff, since each CONNACK resets it;
 * it ends for good on a refused CONNACK (MQTT v5: a wrong password, an ACL) or a TLS
 * failure (an unknown CA, an expired certificate), and on a DISCONNECT from the broker.
 * Here every one is retried, with the same backoff; status and the log say why meanwhile.
 */
static void *run(void *arg)
{
	struct mqtt *m = arg;
	int r;

	/*
	 * The first connection is made here, not in mqtt_start(): libmosquitto 2.0 takes CONNECT
	 * properties in its blocking connect only, keeps them (even when that connect fails) and
	 * sends them again on every reconnect. It blocks this thread in connect() as each
	 * reconnect does already; latencyd's requests never wait for it.
	 */
	new_attempt(m);
	r = mosquitto_connect_bind_v5(m->mosq, m->s->broker_host, (int)m->s->port, KEEPALIVE_SEC,
				      NULL, m->connect_props);
	/* A broker that is down now is not an error: the loop retries with backoff. */
	if (r != MOSQ_ERR_SUCCESS)
		mqtt_problem(m, FLEET_DISCONNECTED, mosquitto_strerror(r));
	for (;;) {
		pthread_testcancel();
		/* Not connected (or no more), it returns at once. */
		if (mosquitto_loop(m->mosq, -1, 1) == MOSQ_ERR_SUCCESS) {
			check_suback(m);
			continue;
		}
		if (!backoff(m))
			return NULL;
		new_attempt(m);
		mosquitto_reconnect(m->mosq); /* a failure: the loop returns, and waits again */
	}
}

int mqtt_start(struct mqtt *m)
{
	int r;

	mqtt_event(m, FLEET_WIRE_COUNTERS, NULL); /* whom it runs as, at once */
	mosquitto_threaded_set(m->mosq, true);
	r = thread_start(&m->thread, SCHED_OTHER, 0, THREAD_STACK_WORKER, run, m, "fleet-mqtt");
	if (r < 0)
		return r;
	m->started = true;
	return 0;
}

/*
 * A request to libmosquitto, at QoS 1, if the connection is up (connected()): not
 * connected, it is not handed on (-ENOTCONN), and latencyd keeps it and decides when it is
 * too late (manager/outbox.c).
 *
 * MOSQ_ERR_NO_CONN is taken as MOSQ_ERR_SUCCESS. libmosquitto (2.0) queues a QoS 1 message
 * before it tries to write it (lib/actions.c, messages_mosq.c: message__queue()), and says
 * MOSQ_ERR_NO_CONN when the socket turns out closed: the connection dropped since
 * connected() (the network thread closes the socket before on_disconnect() runs). The
 * message stays queued, is sent after the next CONNACK (queued before the reconnection
 * resets the queue, connected(): message__reconnect_reset(), message__retry_check()), and
 * its PUBACK counts it published. Refused here, latencyd would
 * count it failed and publish it again: peers would get it twice, both PUBACKs counted.
 *
 * Queued so, it goes out whenever the connection is back, as one in flight when it dropped
 * does. An alert's expiry interval does not bound that wait: the broker counts it from the
 * PUBLISH it receives. Peers do: an alert whose incident ended more than their
 * fleet.max_age ago is answered stale, never recorded (inbound.c).
 */
static int publish_request(struct mqtt *m, const char *t, const char *text,
			   const mosquitto_property *props, uint32_t seq)
{
	int r = -ENOTCONN, mid = 0, slot = -1;

	pthread_mutex_lock(&m->pub_lock);
	/* An alert's PUBACK is told to latencyd by its seq: no place to keep it, not sent. */
	for (int i = 0; i < ALERT_MIDS && seq && slot < 0; i++)
		if (!m->alert_mid[i].mid)
			slot = i;
	if (seq && slot < 0) {
		r = -ENOBUFS;
	} else if (connected(m)) {
		r = mosquitto_publish_v5(m->mosq, &mid, t, (int)strlen(text), text, 1, false,
					 props);
		if (r == MOSQ_ERR_SUCCESS || r == MOSQ_ERR_NO_CONN) {
			m->unacked++;
			if (seq) /* under pub_lock: its PUBACK cannot come before this */
				m->alert_mid[slot].mid = mid, m->alert_mid[slot].seq = seq;
			r = 0;
		} else {
			r = -EIO;
		}
	}
	pthread_mutex_unlock(&m->pub_lock);
	return r;
}

/*
 * latencyd gives the place of an alert it let go to a new one (fleet_client.c
 * inflight_add()), and this one must follow, or a broker that keeps the connection but
 * acknowledges nothing would leave every alert after the ALERT_MIDS-th without a place
 * (-ENOBUFS), for as long as it stays connected. The message stays in libmosquitto's queue,
 * sent again on a new connection: its PUBACK counts it published as any request's does
 * (on_publish()), latencyd having counted it failed when it let its place go.
 */
void mqtt_forget(struct mqtt *m, uint32_t seq)
{
	pthread_mutex_lock(&m->pub_lock);
	for (int i = 0; i < ALERT_MIDS; i++)
		if (m->alert_mid[i].mid && m->alert_mid[i].seq == seq) {
			m->alert_mid[i].mid = 0;
			break;
		}
	pthread_mutex_unlock(&m->pub_lock);
}

int mqtt_publish(struct mqtt *m, const struct fleet_wire_request *q)
{
	bool alert = q->type == FLEET_WIRE_PUBLISH_ALERT;
	mosquitto_property *props = NULL;
	char t[TOPIC_MAX], *text = NULL;
	int r;

	if (!connected(m))
		return -ENOTCONN; /* checked again under pub_lock (publish_request()) */
	r = alert ? proto_fleet_alert_new(&q->alert, &text)
		  : proto_fleet_result_new(&q->result, &text);
	if (r < 0)
		return -ENOMEM;
	if (alert) {
		r = topic(m, t, PROTO_FLEET_TOPIC_ALERT, m->s->host);
	} else {
		/* To the incidents' origin (one for all, fleet_wire_request_check()). */
		char origin[PROTO_FLEET_NAME_MAX + 1];

		r = proto_fleet_incident_parse(q->result.incidents[0], origin, sizeof(origin),
					       NULL);
		if (r == 0)
			r = proto_fleet_result_topic(t, TOPIC_MAX, m->s->prefix, m->s->group,
						     origin, m->s->host);
	}
	if (r == 0 && alert && q->ttl_ns) {
		/* Whole seconds, rounded up: the broker drops it once that has passed. */
		uint32_t expiry = (uint32_t)((q->ttl_ns + 999999999) / 1000000000);

		r = mosquitto_property_add_int32(&props, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL, expiry);
	}
	r = r == MOSQ_ERR_SUCCESS ? publish_request(m, t, text, props, alert ? q->seq : 0) : -EIO;
	mosquitto_property_free_all(&props);
	free(text);
	return r;
}

/* Whether on_disconnect() has seen our DISCONNECT sent, within about @ms milliseconds. */
static bool wait_closed(struct mqtt *m, int ms)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	bool closed = false;

	for (int waited = 0; !closed && waited <= ms; waited += 10) {
		pthread_mutex_lock(&m->lock);
		closed = m->closed;
		pthread_mutex_unlock(&m->lock);
		if (!closed)
			nanosleep(&tick, NULL);
	}
	return closed;
}

void mqtt_free(struct mqtt *m)
{
	if (!m)
		return;
	if (m->started) {
		bool clean;

		pthread_mutex_lock(&m->lock);
		m->stopping = true;
		pthread_mutex_unlock(&m->lock);
		/* Before the DISCONNECT, in order: a clean stop sends no last will. */
		publish_presence(m, PROTO_FLEET_OFFLINE, false);
		/*
		 * Connected, the network thread sends the DISCONNECT, tells on_disconnect() and
		 * ends by itself: joined, not cancelled. A cancel can catch it between taking
		 * that packet off libmosquitto's queue and freeing it, and the packet is lost.
		 * Not connected, or not done within 2 s (a connect() to an unreachable broker),
		 * it is cancelled: shutting down must not wait for a timeout.
		 */
		clean = mosquitto_disconnect(m->mosq) == MOSQ_ERR_SUCCESS && wait_closed(m, 2000);
		pthread_mutex_lock(&m->lock);
		pthread_cond_signal(&m->wake);
		pthread_mutex_unlock(&m->lock);
		if (!clean)
			pthread_cancel(m->thread);
		pthread_join(m->thread, NULL);
	}
	mosquitto_destroy(m->mosq);
	mosquitto_property_free_all(&m->connect_props);
	mosquitto_lib_cleanup();
	pthread_cond_destroy(&m->wake);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->send_lock);
	pthread_mutex_destroy(&m->pub_lock);
	free(m);
}
