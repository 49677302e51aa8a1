/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fleet's MQTT client on libmosquitto's threaded interface: connect in the background,
 * reconnect with backoff (1 s doubling to 60 s), subscribe to this group's alerts and
 * results, publish with QoS 1. Everything that arrives is checked (proto/fleet.c) and a
 * bad message is counted and dropped: it never reaches the recorder.
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

#include "fleet_client.h"
#include "log.h"
#include "mqtt_lib.h"
#include "thread.h"

#define KEEPALIVE_SEC	  30
#define RECONNECT_MIN_SEC 1
#define RECONNECT_MAX_SEC 60
#define SEEN_INCIDENTS	  256  /* recent incidents, to record each once */
#define NOTES_MAX	  1024 /* notes the main loop has not taken; more are dropped */
#define TOPIC_MAX	  (4 * PROTO_FLEET_NAME_MAX + 8)

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
	bool stopping, closed; /* fleet_free() said DISCONNECT; on_disconnect() saw it done */
	bool record_peers;     /* fleet.record_peers, read once: the MQTT thread reads it */
	char *broker;	       /* as configured, for messages */
	char *password;
	int note_fd;

	pthread_mutex_t lock; /* notes and status: the MQTT thread writes, the main loop reads */
	struct fleet_note *head, **tail;
	size_t n_notes;
	struct fleet_status st;
	/* The MQTT thread's own: incidents already taken. */
	char seen[SEEN_INCIDENTS][PROTO_FLEET_INCIDENT_MAX + 1];
	size_t seen_next;
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

static void on_connect(struct mosquitto *mosq, void *userdata, int rc)
{
	struct fleet *f = userdata;
	char topic[TOPIC_MAX];
	const char *kinds[] = {PROTO_FLEET_TOPIC_ALERT, PROTO_FLEET_TOPIC_RESULT};

	if (rc != 0) {
		note(f, note_new(FLEET_DISCONNECTED, mq->connack_string(rc)));
		pthread_mutex_lock(&f->lock);
		snprintf(f->st.detail, sizeof(f->st.detail), "%s", mq->connack_string(rc));
		pthread_mutex_unlock(&f->lock);
		return;
	}
	for (size_t i = 0; i < 2; i++)
		if (proto_fleet_topic(topic, sizeof(topic), f->prefix, f->group, kinds[i], "+") ==
		    0)
			mq->subscribe(mosq, NULL, topic, 1);
	pthread_mutex_lock(&f->lock);
	f->st.connected = true;
	f->st.detail[0] = 0;
	pthread_mutex_unlock(&f->lock);
	note(f, note_new(FLEET_CONNECTED, f->broker));
}

static void on_disconnect(struct mosquitto *mosq, void *userdata, int rc)
{
	struct fleet *f = userdata;
	const char *why = rc == 0 ? "disconnected" : mq->strerror(rc);

	pthread_mutex_lock(&f->lock);
	if (f->st.connected)
		f->st.reconnects++;
	f->st.connected = false;
	f->closed = f->stopping;
	snprintf(f->st.detail, sizeof(f->st.detail), "%s", why);
	pthread_mutex_unlock(&f->lock);
	note(f, note_new(FLEET_DISCONNECTED, why));
}

/* True the first time an incident is seen (QoS 1 may deliver a message twice). */
static bool first_time(struct fleet *f, const char *incident)
{
	for (size_t i = 0; i < SEEN_INCIDENTS; i++)
		if (strcmp(f->seen[i], incident) == 0)
			return false;
	snprintf(f->seen[f->seen_next], sizeof(f->seen[0]), "%s", incident);
	f->seen_next = (f->seen_next + 1) % SEEN_INCIDENTS;
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
	if (!h || strchr(h + 1, '/'))
		return false;
	snprintf(kind, ksize, "%.*s", (int)(h - k), k);
	snprintf(host, hsize, "%s", h + 1);
	return true;
}

static void on_alert(struct fleet *f, const struct mosquitto_message *m, const char *host,
		     uint64_t received)
{
	struct fleet_note *n;
	char why[160];

	n = note_new(FLEET_PEER_ALERT, NULL);
	if (!n)
		return;
	if (proto_fleet_alert_parse(m->payload, (size_t)m->payloadlen, &n->alert, why,
				    sizeof(why)) < 0) {
		count(f, &f->st.malformed);
	} else if (strcmp(n->alert.group, f->group) != 0) {
		count(f, &f->st.foreign);
	} else if (strcmp(n->alert.host, host) != 0) {
		count(f, &f->st.mismatch); /* a host may only speak for itself */
	} else if (strcmp(host, f->host) == 0) {
		free(n); /* our own, back from the broker */
		return;
	} else if (!f->record_peers) {
		free(n); /* fleet.record_peers = false: this host only publishes */
		return;
	} else if (!first_time(f, n->alert.incident)) {
		count(f, &f->st.duplicate);
	} else if (f->alert(&n->alert, received, f->userdata) < 0) {
		count(f, &f->st.busy);
	} else {
		note(f, n);
		return;
	}
	free(n);
}

static void on_message(struct mosquitto *mosq, void *userdata, const struct mosquitto_message *m)
{
	struct fleet *f = userdata;
	char kind[PROTO_FLEET_NAME_MAX + 1], host[PROTO_FLEET_NAME_MAX + 1], why[160];
	uint64_t received = now_ns();
	struct fleet_note *n;

	count(f, &f->st.received);
	if (!m->topic || !topic_parts(f, m->topic, kind, sizeof(kind), host, sizeof(host))) {
		count(f, &f->st.foreign);
		return;
	}
	if (strcmp(kind, PROTO_FLEET_TOPIC_ALERT) == 0) {
		on_alert(f, m, host, received);
		return;
	}
	if (strcmp(kind, PROTO_FLEET_TOPIC_RESULT) != 0 || !(n = note_new(FLEET_RESULT, NULL))) {
		count(f, &f->st.foreign);
		return;
	}
	if (proto_fleet_result_parse(m->payload, (size_t)m->payloadlen, &n->result, why,
				     sizeof(why)) < 0)
		count(f, &f->st.malformed);
	else if (strcmp(n->result.group, f->group) != 0)
		count(f, &f->st.foreign);
	else if (strcmp(n->result.host, host) != 0)
		count(f, &f->st.mismatch);
	else {
		note(f, n);
		return;
	}
	free(n);
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

static int setup_mosquitto(struct fleet *f, const struct conf_fleet *c)
{
	char id[PROTO_FLEET_NAME_MAX + 16];
	int r;

	snprintf(id, sizeof(id), "latencyd-%s", f->host);
	f->mosq = mq->new_client(id, true, f);
	if (!f->mosq)
		return -errno ?: -ENOMEM;
	mq->connect_callback_set(f->mosq, on_connect);
	mq->disconnect_callback_set(f->mosq, on_disconnect);
	mq->message_callback_set(f->mosq, on_message);
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
	return 0;
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
	f->tail = &f->head;
	f->note_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r = pthread_mutex_init(&f->lock, NULL);
	if (f->note_fd < 0 || r)
		return f->note_fd < 0 ? -errno : -r;
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

int fleet_start(struct fleet *f)
{
	int r;

	/* A broker that is down now is not an error: the loop retries with backoff. */
	r = mq->connect_async(f->mosq, f->broker_host, (int)f->port, KEEPALIVE_SEC);
	if (r != MOSQ_ERR_SUCCESS)
		log_warnx("fleet: cannot connect to %s yet (%s): retrying in the background",
			  f->broker, mq->strerror(r));
	r = mq->loop_start(f->mosq);
	if (r != MOSQ_ERR_SUCCESS) {
		log_warnx("fleet: cannot start the MQTT thread: %s", mq->strerror(r));
		return -EIO;
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

static int publish(struct fleet *f, const char *kind, char *text)
{
	char topic[TOPIC_MAX];
	int r;

	if (!text)
		return -ENOMEM;
	r = proto_fleet_topic(topic, sizeof(topic), f->prefix, f->group, kind, f->host);
	if (r == 0)
		r = mq->publish(f->mosq, NULL, topic, (int)strlen(text), text, 1, false);
	free(text);
	count(f, r == MOSQ_ERR_SUCCESS ? &f->st.published : &f->st.publish_failed);
	return r == MOSQ_ERR_SUCCESS ? 0 : r == MOSQ_ERR_NO_CONN ? -ENOTCONN : -EIO;
}

int fleet_publish_alert(struct fleet *f, struct proto_fleet_alert *a)
{
	char *text = NULL;

	snprintf(a->host, sizeof(a->host), "%s", f->host);
	snprintf(a->group, sizeof(a->group), "%s", f->group);
	snprintf(a->boot_id, sizeof(a->boot_id), "%s", f->boot_id);
	if (proto_fleet_alert_new(a, &text) < 0)
		return -ENOMEM;
	return publish(f, PROTO_FLEET_TOPIC_ALERT, text);
}

int fleet_publish_result(struct fleet *f, const char *incident, const char *status)
{
	struct proto_fleet_result res = {0};
	char *text = NULL;

	snprintf(res.host, sizeof(res.host), "%s", f->host);
	snprintf(res.group, sizeof(res.group), "%s", f->group);
	snprintf(res.incident, sizeof(res.incident), "%s", incident);
	snprintf(res.status, sizeof(res.status), "%s", status);
	if (proto_fleet_result_new(&res, &text) < 0)
		return -ENOMEM;
	return publish(f, PROTO_FLEET_TOPIC_RESULT, text);
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
			/*
			 * Connected, the MQTT thread sends the DISCONNECT, tells on_disconnect()
			 * and ends by itself: joined, not cancelled. A cancel can catch it between
			 * taking that packet off libmosquitto's queue and freeing it (in the
			 * close() or the callback in between), and the packet is lost. Not
			 * connected, or not done within 2 s (a connect() to an unreachable
			 * broker), it is cancelled: shutting down must not wait for a timeout.
			 */
			clean = mq->disconnect(f->mosq) == MOSQ_ERR_SUCCESS && wait_closed(f, 2000);
			mq->loop_stop(f->mosq, !clean);
		}
		mq->destroy(f->mosq);
	}
	if (f->lib_init)
		mq->lib_cleanup();
	fleet_note_free(f->head);
	if (f->note_fd >= 0)
		close(f->note_fd);
	pthread_mutex_destroy(&f->lock);
	if (f->password)
		explicit_bzero(f->password, strlen(f->password));
	free(f->password);
	free(f->broker);
	free(f);
}
