/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet's MQTT client on libmosquitto, MQTT v5, in a thread of its own: connect in the
 * background, reconnect with backoff (1 s doubling to 60 s), subscribe to this group,
 * announce this host with a retained presence (and a last will saying it went away),
 * publish with QoS 1. Everything that arrives is checked (proto/fleet.c) and a bad message
 * is counted and dropped: it never reaches the recorder. A request is bounded in time: an
 * alert older than fleet.max_age by this host's clock is stale, dropped and reported.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <mqtt_protocol.h>

#include "fleet_client.h"
#include "log.h"
#include "mqtt_lib.h"
#include "thread.h"

#define KEEPALIVE_SEC	  30
#define RECONNECT_MIN_SEC 1
#define RECONNECT_MAX_SEC 60
#define SEEN_ORIGINS	  64  /* origins whose recent incidents are remembered */
#define SEEN_PER_ORIGIN	  32  /* an origin's recent incidents, to record each once */
#define NOTES_MAX	  256 /* notes the main loop has not taken; more are dropped */
#define TOPIC_MAX	  (4 * PROTO_FLEET_NAME_MAX + 8)

/* One origin's recent incidents: a ring of their numbers, per boot of the origin. */
struct seen_origin {
	char host[PROTO_FLEET_NAME_MAX + 1];
	char boot_id[40];
	uint64_t seq[SEEN_PER_ORIGIN];
	size_t next;
	uint64_t used; /* the least recently used origin makes room for a new one */
};

/* libmosquitto, opened by the first fleet_new() (mqtt_lib.h). */
static const struct mqtt_lib *mq;

struct fleet {
	struct mosquitto *mosq;
	fleet_alert_fn alert;
	void *userdata;
	char host[PROTO_FLEET_NAME_MAX + 1], group[PROTO_FLEET_NAME_MAX + 1];
	char prefix[PROTO_FLEET_NAME_MAX + 1], boot_id[40];
	char broker_host[256];
	unsigned port;
	bool tls, started, lib_init;
	pthread_t thread;      /* the network thread (run()) */
	pthread_cond_t wake;   /* its backoff, cut short by fleet_free() */
	unsigned backoff_sec;  /* before the next reconnect, after a refusal */
	bool stopping, closed; /* fleet_free() said DISCONNECT; on_disconnect() saw it done */
	bool record_peers;     /* fleet.record_peers, read once: the MQTT thread reads it */
	uint64_t max_age_ns;   /* fleet.max_age, read once too */
	uint64_t since_ns;     /* CLOCK_REALTIME at start, in the presence */
	char *broker;	       /* as configured, for messages */
	char *password;
	int note_fd;

	pthread_mutex_t lock; /* notes and status: the MQTT thread writes, the main loop reads */
	struct fleet_note *head, **tail;
	size_t n_notes;
	struct fleet_status st;
	char said[160]; /* the last connection problem noted: each is said once */
	/* The MQTT thread's own: incidents already taken. */
	struct seen_origin seen[SEEN_ORIGINS];
	uint64_t seen_clock;
};

static void note(struct fleet *f, struct fleet_note *n)
{
	uint64_t one = 1;

	pthread_mutex_lock(&f->lock);
	if (f->n_notes >= NOTES_MAX) {
		pthread_mutex_unlock(&f->lock);
		free(n);
		return;
	}
	n->next = NULL;
	*f->tail = n;
	f->tail = &n->next;
	f->n_notes++;
	pthread_mutex_unlock(&f->lock);
	if (write(f->note_fd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow in practice; the main loop reads it. */
	}
}

static struct fleet_note *note_new(enum fleet_note_kind kind, const char *detail)
{
	struct fleet_note *n = calloc(1, sizeof(*n));

	if (n) {
		n->kind = kind;
		snprintf(n->detail, sizeof(n->detail), "%s", detail ?: "");
	}
	return n;
}

static void count(struct fleet *f, uint64_t *counter)
{
	pthread_mutex_lock(&f->lock);
	(*counter)++;
	pthread_mutex_unlock(&f->lock);
}

/*
 * A connection problem for status and, once per distinct reason, for the log: a broker
 * that refuses us is retried every minute, and the journal must not fill with the retries.
 */
static void problem(struct fleet *f, enum fleet_note_kind kind, const char *why)
{
	bool new;

	pthread_mutex_lock(&f->lock);
	snprintf(f->st.detail, sizeof(f->st.detail), "%s", why);
	new = strcmp(f->said, why) != 0;
	if (new)
		snprintf(f->said, sizeof(f->said), "%s", why);
	pthread_mutex_unlock(&f->lock);
	if (new)
		note(f, note_new(kind, why));
}

static int presence_text(struct fleet *f, const char *state, char **text)
{
	struct proto_fleet_presence p = {.since_realtime_ns = f->since_ns};

	snprintf(p.host, sizeof(p.host), "%s", f->host);
	snprintf(p.group, sizeof(p.group), "%s", f->group);
	snprintf(p.boot_id, sizeof(p.boot_id), "%s", f->boot_id);
	snprintf(p.state, sizeof(p.state), "%s", state);
	return proto_fleet_presence_new(&p, text);
}

/* Retained: a host that starts later learns who the members are from the broker. */
static void publish_presence(struct fleet *f, const char *state)
{
	char topic[TOPIC_MAX], *text = NULL;

	if (proto_fleet_topic(topic, sizeof(topic), f->prefix, f->group, PROTO_FLEET_TOPIC_PRESENCE,
			      f->host) == 0 &&
	    presence_text(f, state, &text) == 0)
		mq->publish(f->mosq, NULL, topic, (int)strlen(text), text, 1, true);
	free(text);
}

static void on_connect(struct mosquitto *mosq, void *userdata, int rc)
{
	struct fleet *f = userdata;
	char topic[TOPIC_MAX];

	if (rc != 0) {
		/* MQTT v5 reason codes: "Bad user name or password", "Not authorized"... */
		char why[160];

		snprintf(why, sizeof(why), "the broker refused the connection: %s",
			 mq->reason_string(rc));
		problem(f, FLEET_DISCONNECTED, why);
		return;
	}
	/* One subscription for the group's alerts, results and presences: one SUBACK to check. */
	if (proto_fleet_topic(topic, sizeof(topic), f->prefix, f->group, "+", "+") == 0)
		mq->subscribe(mosq, NULL, topic, 1);
	publish_presence(f, PROTO_FLEET_ONLINE);
	pthread_mutex_lock(&f->lock);
	f->st.connected = true;
	f->st.detail[0] = 0;
	f->said[0] = 0;
	f->backoff_sec = RECONNECT_MIN_SEC;
	pthread_mutex_unlock(&f->lock);
	note(f, note_new(FLEET_CONNECTED, f->broker));
}

static void on_subscribe(struct mosquitto *mosq, void *userdata, int mid, int n, const int *granted)
{
	struct fleet *f = userdata;
	char topic[TOPIC_MAX], why[160];
	bool ok = n >= 1 && granted[0] < 0x80; /* 0x80 and above: refused */

	(void)mosq;
	(void)mid;
	pthread_mutex_lock(&f->lock);
	f->st.subscribed = ok;
	pthread_mutex_unlock(&f->lock);
	if (ok)
		return;
	proto_fleet_topic(topic, sizeof(topic), f->prefix, f->group, "+", "+");
	snprintf(why, sizeof(why), "the broker refused the subscription to %.64s (%.40s)", topic,
		 n >= 1 ? mq->reason_string(granted[0]) : "no answer");
	problem(f, FLEET_ERROR, why);
}

static void on_disconnect(struct mosquitto *mosq, void *userdata, int rc)
{
	struct fleet *f = userdata;
	bool was;

	(void)mosq;
	pthread_mutex_lock(&f->lock);
	was = f->st.connected;
	if (was)
		f->st.reconnects++;
	f->st.connected = false;
	f->st.subscribed = false;
	f->closed = f->stopping;
	pthread_mutex_unlock(&f->lock);
	/* Not connected yet: the refused CONNACK or the TLS error said why already. */
	if (was)
		problem(f, FLEET_DISCONNECTED, rc == 0 ? "disconnected" : mq->strerror(rc));
}

/* libmosquitto's own words on what failed (TLS, DNS, a refused connect): kept for status. */
static void on_log(struct mosquitto *mosq, void *userdata, int level, const char *text)
{
	struct fleet *f = userdata;
	char why[160];
	bool connected;

	(void)mosq;
	if (!(level & MOSQ_LOG_ERR) || !text)
		return;
	pthread_mutex_lock(&f->lock);
	connected = f->st.connected;
	pthread_mutex_unlock(&f->lock);
	if (connected)
		return;
	snprintf(why, sizeof(why), "%s", text);
	for (char *p = why; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	problem(f, FLEET_DISCONNECTED, why);
}

/* True the first time an incident of its origin is seen (QoS 1 may deliver twice). */
static bool first_time(struct fleet *f, const struct proto_fleet_alert *a)
{
	struct seen_origin *o = NULL, *oldest = &f->seen[0];
	uint64_t seq;

	if (proto_fleet_incident_parse(a->incident, NULL, 0, &seq) < 0)
		return false;
	for (size_t i = 0; i < SEEN_ORIGINS && !o; i++) {
		if (strcmp(f->seen[i].host, a->host) == 0)
			o = &f->seen[i];
		else if (f->seen[i].used < oldest->used)
			oldest = &f->seen[i];
	}
	if (!o) {
		o = oldest;
		memset(o, 0, sizeof(*o));
		snprintf(o->host, sizeof(o->host), "%s", a->host);
	}
	o->used = ++f->seen_clock;
	/* Another boot of the origin numbers its incidents again. */
	if (strcmp(o->boot_id, a->boot_id) != 0) {
		memset(o->seq, 0, sizeof(o->seq));
		snprintf(o->boot_id, sizeof(o->boot_id), "%s", a->boot_id);
	}
	for (size_t i = 0; i < SEEN_PER_ORIGIN; i++)
		if (o->seq[i] == seq)
			return false;
	o->seq[o->next] = seq;
	o->next = (o->next + 1) % SEEN_PER_ORIGIN;
	return true;
}

/* PREFIX/GROUP/KIND/HOST: the kind and the host, or false for a topic not ours. */
static bool topic_parts(const struct fleet *f, const char *topic, char *kind, size_t ksize,
			char *host, size_t hsize)
{
	size_t plen = strlen(f->prefix), glen = strlen(f->group);
	const char *k, *h;

	if (strncmp(topic, f->prefix, plen) != 0 || topic[plen] != '/' ||
	    strncmp(topic + plen + 1, f->group, glen) != 0 || topic[plen + 1 + glen] != '/')
		return false;
	k = topic + plen + glen + 2;
	h = strchr(k, '/');
	if (!h || strchr(h + 1, '/') || (size_t)(h - k) >= ksize || strlen(h + 1) >= hsize)
		return false;
	snprintf(kind, ksize, "%.*s", (int)(h - k), k);
	snprintf(host, hsize, "%s", h + 1);
	return true;
}

/*
 * What every message must pass: it parsed (PARSED, the parser's result), names our group,
 * and its sender CLAIMED to be the host of its topic. Counted otherwise.
 */
static bool accepted(struct fleet *f, int parsed, const char *group, const char *claimed,
		     const char *host)
{
	if (parsed < 0)
		count(f, &f->st.malformed);
	else if (strcmp(group, f->group) != 0)
		count(f, &f->st.foreign);
	else if (strcmp(claimed, host) != 0)
		count(f, &f->st.mismatch);
	else
		return true;
	return false;
}

/* Older than max_age by this host's clock, or from as far in its future (clocks apart). */
static bool stale(const struct fleet *f, const struct proto_fleet_alert *a)
{
	uint64_t now = realtime_ns(), end = a->end_realtime_ns;

	return end <= now ? now - end > f->max_age_ns : end - now > f->max_age_ns;
}

static void unanswered(struct fleet *f, struct fleet_note *n, const char *status,
		       const char *budget)
{
	n->kind = FLEET_UNANSWERED;
	snprintf(n->detail, sizeof(n->detail), "%s", status);
	snprintf(n->budget, sizeof(n->budget), "%s", budget);
	note(f, n);
}

/* A host speaks only for its own incidents. Counted otherwise. */
static bool own_incident(struct fleet *f, const struct proto_fleet_alert *a, const char *host)
{
	char origin[PROTO_FLEET_NAME_MAX + 1];

	if (proto_fleet_incident_parse(a->incident, origin, sizeof(origin), NULL) == 0 &&
	    strcmp(origin, host) == 0)
		return true;
	count(f, &f->st.mismatch);
	return false;
}

static void on_alert(struct fleet *f, const struct mosquitto_message *m, const char *host,
		     uint64_t received)
{
	struct fleet_note *n = note_new(FLEET_PEER_ALERT, NULL);
	char why[160];

	if (!n)
		return;
	/* Dropped (and counted), our own back from the broker, or fleet.record_peers = false:
	 * this host only publishes. */
	if (!accepted(f,
		      proto_fleet_alert_parse(m->payload, (size_t)m->payloadlen, &n->alert, why,
					      sizeof(why)),
		      n->alert.group, n->alert.host, host) ||
	    !own_incident(f, &n->alert, host) || strcmp(host, f->host) == 0 || !f->record_peers) {
		free(n);
	} else if (!first_time(f, &n->alert)) {
		count(f, &f->st.duplicate);
		free(n);
	} else if (stale(f, &n->alert)) {
		count(f, &f->st.stale); /* held by a broker, or clocks apart: never recorded */
		unanswered(f, n, PROTO_FLEET_STALE, "");
	} else if (f->alert(&n->alert, received, f->userdata) < 0) {
		count(f, &f->st.busy);
		unanswered(f, n, PROTO_FLEET_REFUSED, PROTO_FLEET_BUDGET_QUEUE);
	} else {
		note(f, n);
	}
}

static void on_result(struct fleet *f, const struct mosquitto_message *m, const char *host)
{
	struct fleet_note *n = note_new(FLEET_RESULT, NULL);
	char why[160];

	if (!n)
		return;
	if (accepted(f,
		     proto_fleet_result_parse(m->payload, (size_t)m->payloadlen, &n->result, why,
					      sizeof(why)),
		     n->result.group, n->result.host, host)) {
		note(f, n);
		return;
	}
	free(n);
}

static void on_presence(struct fleet *f, const struct mosquitto_message *m, const char *host)
{
	struct fleet_note *n = note_new(FLEET_PRESENCE, NULL);
	char why[160];

	if (!n)
		return;
	if (m->payloadlen == 0) {
		free(n); /* a retained presence cleared */
		return;
	}
	if (accepted(f,
		     proto_fleet_presence_parse(m->payload, (size_t)m->payloadlen, &n->presence,
						why, sizeof(why)),
		     n->presence.group, n->presence.host, host) &&
	    strcmp(host, f->host) != 0) {
		note(f, n);
		return;
	}
	free(n);
}

static void on_message(struct mosquitto *mosq, void *userdata, const struct mosquitto_message *m)
{
	struct fleet *f = userdata;
	char kind[PROTO_FLEET_NAME_MAX + 1], host[PROTO_FLEET_NAME_MAX + 1];
	uint64_t received = now_ns();

	(void)mosq;
	count(f, &f->st.received);
	/* Refused before any parsing: the broker's message_size_limit should stop it first. */
	if (m->payloadlen < 0 || m->payloadlen > PROTO_FLEET_MAX) {
		count(f, &f->st.malformed);
		return;
	}
	if (!m->topic || !topic_parts(f, m->topic, kind, sizeof(kind), host, sizeof(host)) ||
	    !proto_fleet_name_valid(host)) {
		count(f, &f->st.foreign);
		return;
	}
	if (strcmp(kind, PROTO_FLEET_TOPIC_ALERT) == 0)
		on_alert(f, m, host, received);
	else if (strcmp(kind, PROTO_FLEET_TOPIC_RESULT) == 0)
		on_result(f, m, host);
	else if (strcmp(kind, PROTO_FLEET_TOPIC_PRESENCE) == 0)
		on_presence(f, m, host);
	else
		count(f, &f->st.foreign);
}

/* The first line of the password file: the file is the secret, never the configuration. */
static int read_password(const char *path, char **ret)
{
	char line[1024];
	FILE *fp = fopen(path, "re");
	int r = 0;

	if (!fp)
		return -errno;
	if (!fgets(line, sizeof(line), fp))
		r = ferror(fp) ? -EIO : -ENODATA;
	fclose(fp);
	if (r < 0)
		return r;
	line[strcspn(line, "\r\n")] = 0;
	*ret = strdup(line);
	return *ret ? 0 : -ENOMEM;
}

static void read_boot_id(char *buf, size_t size)
{
	FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "re");

	buf[0] = 0;
	if (fp) {
		if (fgets(buf, (int)size, fp))
			buf[strcspn(buf, "\n")] = 0;
		fclose(fp);
	}
}

static int resolve_host(const struct conf_fleet *c, char *host, size_t size)
{
	char name[HOST_NAME_MAX + 1] = "";

	if (c->host[0]) {
		snprintf(host, size, "%s", c->host);
		return 0;
	}
	if (gethostname(name, sizeof(name)) < 0)
		return -errno;
	name[strcspn(name, ".")] = 0; /* the short name, as relayd's tree has it */
	if (!proto_fleet_name_valid(name)) {
		log_warnx("fleet.host: the hostname '%s' is not a fleet name: set fleet.host",
			  name);
		return -EINVAL;
	}
	snprintf(host, size, "%s", name);
	return 0;
}

/* Retained, so that every member learns that this host went away without a word. */
static int set_will(struct fleet *f)
{
	char topic[TOPIC_MAX], *text = NULL;
	int r;

	if (proto_fleet_topic(topic, sizeof(topic), f->prefix, f->group, PROTO_FLEET_TOPIC_PRESENCE,
			      f->host) < 0 ||
	    presence_text(f, PROTO_FLEET_OFFLINE, &text) < 0)
		return -ENOMEM;
	r = mq->will_set(f->mosq, topic, (int)strlen(text), text, 1, true);
	free(text);
	if (r != MOSQ_ERR_SUCCESS)
		return log_warnx("fleet: cannot set the last will: %s", mq->strerror(r)), -EINVAL;
	return 0;
}

static int setup_mosquitto(struct fleet *f, const struct conf_fleet *c)
{
	char id[PROTO_FLEET_NAME_MAX + 16];
	int r;

	snprintf(id, sizeof(id), "latencyd-%s", f->host);
	f->mosq = mq->new_client(id, true, f);
	if (!f->mosq)
		return -errno ?: -ENOMEM;
	/* v5: message expiry, so that a broker never delivers a request past its bound. */
	mq->int_option(f->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
	mq->connect_callback_set(f->mosq, on_connect);
	mq->disconnect_callback_set(f->mosq, on_disconnect);
	mq->message_callback_set(f->mosq, on_message);
	mq->subscribe_callback_set(f->mosq, on_subscribe);
	mq->log_callback_set(f->mosq, on_log);
	mq->reconnect_delay_set(f->mosq, RECONNECT_MIN_SEC, RECONNECT_MAX_SEC, true);
	if (c->username[0] || f->password) {
		r = mq->username_pw_set(f->mosq, c->username[0] ? c->username : NULL, f->password);
		if (r != MOSQ_ERR_SUCCESS)
			return log_warnx("fleet.username: %s", mq->strerror(r)), -EINVAL;
	}
	if (f->tls || c->ca_file[0] || c->cert_file[0]) {
		r = mq->tls_set(f->mosq, c->ca_file[0] ? c->ca_file : NULL,
				c->ca_file[0] ? NULL : "/etc/ssl/certs",
				c->cert_file[0] ? c->cert_file : NULL,
				c->key_file[0] ? c->key_file : NULL, NULL);
		if (r != MOSQ_ERR_SUCCESS) {
			log_warnx("fleet.ca_file, cert_file, key_file: %s", mq->strerror(r));
			return -EINVAL;
		}
	}
	return set_will(f);
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

int fleet_new(const struct conf *conf, fleet_alert_fn fn, void *userdata, struct fleet **ret)
{
	const struct conf_fleet *c = &conf->fleet;
	struct fleet *f = calloc(1, sizeof(*f));
	char why[256];
	int r;

	if (!f)
		return -ENOMEM;
	*ret = f;
	f->alert = fn;
	f->userdata = userdata;
	f->record_peers = c->record_peers;
	f->max_age_ns = c->max_age_ns;
	f->since_ns = realtime_ns();
	f->tail = &f->head;
	f->note_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r = pthread_mutex_init(&f->lock, NULL);
	if (f->note_fd < 0 || r)
		return f->note_fd < 0 ? -errno : -r;
	f->backoff_sec = RECONNECT_MIN_SEC;
	r = cond_init_monotonic(&f->wake);
	if (r)
		return -r;
	f->broker = strdup(c->broker);
	if (!f->broker)
		return -ENOMEM;
	snprintf(f->group, sizeof(f->group), "%s", c->group);
	snprintf(f->prefix, sizeof(f->prefix), "%s", c->topic_prefix);
	read_boot_id(f->boot_id, sizeof(f->boot_id));
	r = resolve_host(c, f->host, sizeof(f->host));
	if (r < 0)
		return r;
	r = conf_broker_parse(c->broker, f->broker_host, sizeof(f->broker_host), &f->port, &f->tls);
	if (r < 0)
		return r; /* checked when the file was read */
	if (c->password_file[0] && (r = read_password(c->password_file, &f->password)) < 0)
		return log_warn_errno(r, "fleet.password_file: cannot read %s", c->password_file);
	mq = mqtt_lib_open(why, sizeof(why));
	if (!mq)
		return log_warnx("fleet: %s", why), -ELIBACC;
	mq->lib_init();
	f->lib_init = true;
	r = setup_mosquitto(f, c);
	if (r < 0)
		return r;
	snprintf(f->st.broker, sizeof(f->st.broker), "%s", c->broker);
	snprintf(f->st.host, sizeof(f->st.host), "%s", f->host);
	snprintf(f->st.group, sizeof(f->st.group), "%s", f->group);
	snprintf(f->st.detail, sizeof(f->st.detail), "connecting");
	return 0;
}

/*
 * The network thread. libmosquitto's own (mosquitto_loop_start()) retries a broker that is
 * down, but ends for good on a refused CONNACK (MQTT v5: a wrong password, an ACL) or a
 * TLS failure (an unknown CA, an expired certificate): a fleet that a broker refused once
 * would never come back after the operator fixed it. Here those are retried too, with the
 * same backoff; status and the log say why meanwhile.
 */
static void *run(void *arg)
{
	struct fleet *f = arg;

	for (;;) {
		struct timespec until;
		bool stop;

		mq->loop_forever(f->mosq, -1, 1);
		/* fleet_free() may cancel us elsewhere, never holding the lock. */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		pthread_mutex_lock(&f->lock);
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += f->backoff_sec;
		f->backoff_sec = f->backoff_sec * 2 > RECONNECT_MAX_SEC ? RECONNECT_MAX_SEC
									: f->backoff_sec * 2;
		while (!f->stopping && pthread_cond_timedwait(&f->wake, &f->lock, &until) == 0)
			;
		stop = f->stopping;
		pthread_mutex_unlock(&f->lock);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		if (stop)
			return NULL;
		mq->reconnect(f->mosq); /* a failure: loop_forever() retries, or returns again */
	}
}

int fleet_start(struct fleet *f)
{
	int r;

	/* A broker that is down now is not an error: the loop retries with backoff. */
	r = mq->connect_async(f->mosq, f->broker_host, (int)f->port, KEEPALIVE_SEC);
	if (r != MOSQ_ERR_SUCCESS)
		log_warnx("fleet: cannot connect to %s yet (%s): retrying in the background",
			  f->broker, mq->strerror(r));
	mq->threaded_set(f->mosq, true);
	r = thread_start(&f->thread, SCHED_OTHER, 0, THREAD_STACK_WORKER, run, f, "latencyd-mqtt");
	if (r < 0) {
		log_warn_errno(r, "fleet: cannot start the MQTT thread");
		return r;
	}
	f->started = true;
	return 0;
}

const char *fleet_host(const struct fleet *f)
{
	return f->host;
}

int fleet_eventfd(const struct fleet *f)
{
	return f->note_fd;
}

struct fleet_note *fleet_take(struct fleet *f)
{
	struct fleet_note *list;
	uint64_t v;

	if (read(f->note_fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: the list is checked anyway. */
	}
	pthread_mutex_lock(&f->lock);
	list = f->head;
	f->head = NULL;
	f->tail = &f->head;
	f->n_notes = 0;
	pthread_mutex_unlock(&f->lock);
	return list;
}

void fleet_note_free(struct fleet_note *n)
{
	while (n) {
		struct fleet_note *next = n->next;

		free(n);
		n = next;
	}
}

static int publish(struct fleet *f, const char *kind, char *text, uint64_t ttl_ns)
{
	mosquitto_property *props = NULL;
	char topic[TOPIC_MAX];
	bool connected;
	int r;

	if (!text)
		return -ENOMEM;
	pthread_mutex_lock(&f->lock);
	connected = f->st.connected;
	pthread_mutex_unlock(&f->lock);
	r = proto_fleet_topic(topic, sizeof(topic), f->prefix, f->group, kind, f->host);
	if (r == 0 && !connected) {
		r = MOSQ_ERR_NO_CONN; /* libmosquitto would queue it for the next connection */
	} else if (r == 0) {
		/* Whole seconds, rounded up: the broker drops it once that has passed. */
		uint32_t expiry = ttl_ns ? (uint32_t)((ttl_ns + 999999999) / 1000000000) : 0;

		if (expiry)
			r = mq->property_add_int32(&props, MQTT_PROP_MESSAGE_EXPIRY_INTERVAL,
						   expiry);
		if (r == MOSQ_ERR_SUCCESS)
			r = mq->publish_v5(f->mosq, NULL, topic, (int)strlen(text), text, 1, false,
					   props);
		mq->property_free_all(&props);
	}
	free(text);
	count(f, r == MOSQ_ERR_SUCCESS ? &f->st.published : &f->st.publish_failed);
	return r == MOSQ_ERR_SUCCESS ? 0 : r == MOSQ_ERR_NO_CONN ? -ENOTCONN : -EIO;
}

int fleet_publish_alert(struct fleet *f, struct proto_fleet_alert *a, uint64_t ttl_ns)
{
	char *text = NULL;

	snprintf(a->host, sizeof(a->host), "%s", f->host);
	snprintf(a->group, sizeof(a->group), "%s", f->group);
	snprintf(a->boot_id, sizeof(a->boot_id), "%s", f->boot_id);
	a->sent_realtime_ns = realtime_ns();
	if (proto_fleet_alert_new(a, &text) < 0)
		return -ENOMEM;
	return publish(f, PROTO_FLEET_TOPIC_ALERT, text, ttl_ns);
}

int fleet_publish_result(struct fleet *f, struct proto_fleet_result *res)
{
	char *text = NULL;

	snprintf(res->host, sizeof(res->host), "%s", f->host);
	snprintf(res->group, sizeof(res->group), "%s", f->group);
	if (proto_fleet_result_new(res, &text) < 0)
		return -ENOMEM;
	return publish(f, PROTO_FLEET_TOPIC_RESULT, text, 0);
}

void fleet_status(struct fleet *f, struct fleet_status *st)
{
	pthread_mutex_lock(&f->lock);
	*st = f->st;
	pthread_mutex_unlock(&f->lock);
}

/* Whether on_disconnect() has seen our DISCONNECT sent, within about @ms milliseconds. */
static bool wait_closed(struct fleet *f, int ms)
{
	const struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
	bool closed = false;

	for (int waited = 0; !closed && waited <= ms; waited += 10) {
		pthread_mutex_lock(&f->lock);
		closed = f->closed;
		pthread_mutex_unlock(&f->lock);
		if (!closed)
			nanosleep(&tick, NULL);
	}
	return closed;
}

void fleet_free(struct fleet *f)
{
	if (!f)
		return;
	if (f->mosq) {
		if (f->started) {
			bool clean;

			pthread_mutex_lock(&f->lock);
			f->stopping = true;
			pthread_mutex_unlock(&f->lock);
			/* Before the DISCONNECT, in order: a clean stop sends no last will. */
			publish_presence(f, PROTO_FLEET_OFFLINE);
			/*
			 * Connected, the MQTT thread sends the DISCONNECT, tells on_disconnect()
			 * and ends by itself: joined, not cancelled. A cancel can catch it between
			 * taking that packet off libmosquitto's queue and freeing it (in the
			 * close() or the callback in between), and the packet is lost. Not
			 * connected, or not done within 2 s (a connect() to an unreachable
			 * broker), it is cancelled: shutting down must not wait for a timeout.
			 */
			clean = mq->disconnect(f->mosq) == MOSQ_ERR_SUCCESS && wait_closed(f, 2000);
			pthread_mutex_lock(&f->lock);
			pthread_cond_signal(&f->wake);
			pthread_mutex_unlock(&f->lock);
			if (!clean)
				pthread_cancel(f->thread);
			pthread_join(f->thread, NULL);
		}
		mq->destroy(f->mosq);
	}
	if (f->lib_init)
		mq->lib_cleanup();
	fleet_note_free(f->head);
	if (f->note_fd >= 0)
		close(f->note_fd);
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	if (f->password)
		explicit_bzero(f->password, strlen(f->password));
	free(f->password);
	free(f->broker);
	free(f);
}
