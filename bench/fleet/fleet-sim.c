// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated fleet members for bench/fleet-scale.sh: COUNT libmosquitto clients in one
 * process, each speaking the fleet protocol (proto/fleet.h, its codec) as a latencyd does:
 * MQTT v5 without Nagle, client id latencyd-simNNN, host simNNN; a retained presence "online" and a
 * retained last will "offline"; QoS 0 subscriptions (one SUBSCRIBE, as latencyd) to the
 * group's alerts and presences and to its own results; and for each
 * alert of another host (checked: parsed, our group, sent by its topic's host, its own
 * incident, once per incident) a result "recorded" naming the incident on its own result
 * topic, at once or after -d MS (a real peer answers once its snapshot is recorded). A
 * stop (SIGTERM, SIGINT) publishes the retained "offline" and disconnects, as latencyd's,
 * after unsubscribing (which latencyd does not): see leave().
 *
 * The clients are shared by a few threads (-t, default 4), each polling its clients'
 * sockets and driving libmosquitto's read, write and misc steps itself: a thread per
 * client (mosquitto_loop_start) would make 100 threads wake for every message. Results and
 * presences are told apart by their topic and counted, not parsed (-p parses them too).
 *
 * stdout: "ready COUNT" once every client is subscribed and has announced itself, then at
 * exit one line of NAME=VALUE: what the members saw and sent, the alert's delivery (its
 * sent_realtime_ns to a member's receipt, one clock on one host), the answer's own time
 * (receipt to the result handed to libmosquitto) and the process's CPU time, so that a
 * bench can show that the simulator is not its bottleneck.
 * Usage: fleet-sim [-t THREADS] [-d MS] [-p] [-f FIRST] HOST PORT PREFIX GROUP COUNT
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <mosquitto.h>
#include <mqtt_protocol.h>

#include "fleet.h"

#define KEEPALIVE_SEC 30
#define SEEN_MAX      32 /* a member's recent incidents: each is answered once */
#define TOPIC_MAX     (5 * PROTO_FLEET_NAME_MAX + 16)
#define QUEUE_MAX     65536 /* answers waiting for -d, per thread */
#define MISC_NS	      (UINT64_C(1000) * 1000 * 1000)

struct samples {
	uint64_t *v;
	size_t n, cap;
};

struct worker;

struct member {
	struct mosquitto *mosq;
	struct worker *w;
	char host[PROTO_FLEET_NAME_MAX + 1];
	char presence_topic[TOPIC_MAX];
	bool connected, ready, unsubscribed;
	uint64_t reconnect_at;
	char seen[SEEN_MAX][PROTO_FLEET_INCIDENT_MAX + 1];
	size_t seen_next;
};

struct pending {
	struct member *mb;
	uint64_t due, received;
	char incident[PROTO_FLEET_INCIDENT_MAX + 1];
};

struct worker {
	pthread_t thread;
	struct member **members;
	size_t n;
	struct pollfd *pfd;
	struct pending *queue; /* a ring: one delay for all, so due in arrival order */
	size_t qhead, qlen;
	struct samples deliver, answer;
	uint64_t alerts, sent, send_failed, results, presences, duplicates, rejected, lost,
		reconnects, late, connected_at_stop;
};

static const char *prefix, *group;
static char boot_id[40];
static uint64_t delay_ns, since_ns;
static bool parse_all;
static int stopping; /* set by main on a signal, read by the threads */
static int n_ready;

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void sample(struct samples *s, uint64_t v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		uint64_t *p = realloc(s->v, cap * sizeof(*p));

		if (!p)
			return;
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = v;
}

static int presence_text(const struct member *mb, const char *state, char **text)
{
	struct proto_fleet_presence p = {.since_realtime_ns = since_ns};

	snprintf(p.host, sizeof(p.host), "%s", mb->host);
	snprintf(p.group, sizeof(p.group), "%s", group);
	snprintf(p.boot_id, sizeof(p.boot_id), "%s", boot_id);
	snprintf(p.state, sizeof(p.state), "%s", state);
	return proto_fleet_presence_new(&p, text);
}

static void publish_presence(struct member *mb, const char *state)
{
	char *text = NULL;

	if (presence_text(mb, state, &text) == 0)
		mosquitto_publish_v5(mb->mosq, NULL, mb->presence_topic, (int)strlen(text), text, 1,
				     true, NULL);
	free(text);
}

/* As latencyd: the group's alerts and presences, and the results for its own incidents. */
static void topics(const struct member *mb, char t[3][TOPIC_MAX])
{
	proto_fleet_topic(t[0], TOPIC_MAX, prefix, group, PROTO_FLEET_TOPIC_ALERT, "+");
	proto_fleet_topic(t[1], TOPIC_MAX, prefix, group, PROTO_FLEET_TOPIC_PRESENCE, "+");
	proto_fleet_result_topic(t[2], TOPIC_MAX, prefix, group, mb->host, "+");
}

static void on_connect(struct mosquitto *mosq, void *userdata, int rc)
{
	struct member *mb = userdata;
	char t[3][TOPIC_MAX];
	char *subs[3] = {t[0], t[1], t[2]};

	if (rc != 0) {
		fprintf(stderr, "fleet-sim: %s: the broker refused the connection: %s\n", mb->host,
			mosquitto_reason_string(rc));
		return;
	}
	mb->connected = true;
	/* As latencyd: one SUBSCRIBE of three topics at QoS 0, then the retained presence. */
	topics(mb, t);
	mosquitto_subscribe_multiple(mosq, NULL, 3, subs, 0, 0, NULL);
	publish_presence(mb, PROTO_FLEET_ONLINE);
}

static void on_subscribe(struct mosquitto *mosq, void *userdata, int mid, int n, const int *granted)
{
	struct member *mb = userdata;

	if (n < 3 || granted[0] >= 0x80 || granted[1] >= 0x80 || granted[2] >= 0x80) {
		fprintf(stderr, "fleet-sim: %s: the broker refused the subscription\n", mb->host);
		return;
	}
	if (!mb->ready) {
		mb->ready = true;
		__atomic_add_fetch(&n_ready, 1, __ATOMIC_RELAXED);
	}
}

static void on_unsubscribe(struct mosquitto *mosq, void *userdata, int mid)
{
	struct member *mb = userdata;

	mb->unsubscribed = true;
}

static void on_disconnect(struct mosquitto *mosq, void *userdata, int rc)
{
	struct member *mb = userdata;

	if (mb->connected && !__atomic_load_n(&stopping, __ATOMIC_RELAXED))
		mb->w->lost++;
	mb->connected = false;
}

static void answer(struct member *mb, const char *incident, uint64_t received)
{
	struct proto_fleet_result res = {.n = 1, .count = 1};
	char *text = NULL, topic[TOPIC_MAX], origin[PROTO_FLEET_NAME_MAX + 1];
	int r = -1;

	snprintf(res.host, sizeof(res.host), "%s", mb->host);
	snprintf(res.group, sizeof(res.group), "%s", group);
	snprintf(res.status, sizeof(res.status), "%s", PROTO_FLEET_RECORDED);
	snprintf(res.incidents[0], sizeof(res.incidents[0]), "%s", incident);
	/* To the incident's origin, as latencyd. */
	if (proto_fleet_incident_parse(incident, origin, sizeof(origin), NULL) == 0 &&
	    proto_fleet_result_topic(topic, sizeof(topic), prefix, group, origin, mb->host) == 0 &&
	    proto_fleet_result_new(&res, &text) == 0)
		r = mosquitto_publish_v5(mb->mosq, NULL, topic, (int)strlen(text), text, 1, false,
					 NULL);
	free(text);
	if (r == MOSQ_ERR_SUCCESS) {
		mb->w->sent++;
		sample(&mb->w->answer, clock_ns(CLOCK_MONOTONIC) - received);
	} else {
		mb->w->send_failed++;
	}
}

/* True the first time this member sees the incident. */
static bool first_time(struct member *mb, const char *incident)
{
	for (size_t i = 0; i < SEEN_MAX; i++)
		if (strcmp(mb->seen[i], incident) == 0)
			return false;
	snprintf(mb->seen[mb->seen_next], sizeof(mb->seen[0]), "%s", incident);
	mb->seen_next = (mb->seen_next + 1) % SEEN_MAX;
	return true;
}

static void on_alert(struct member *mb, const struct mosquitto_message *m, const char *host,
		     uint64_t received, uint64_t received_rt)
{
	struct worker *w = mb->w;
	struct proto_fleet_alert a;
	char why[160], origin[PROTO_FLEET_NAME_MAX + 1];

	/* The checks latencyd makes (fleet_client.c): one member answers as a real one would. */
	if (proto_fleet_alert_parse(m->payload, (size_t)m->payloadlen, &a, why, sizeof(why)) < 0 ||
	    strcmp(a.group, group) != 0 || strcmp(a.host, host) != 0 ||
	    proto_fleet_incident_parse(a.incident, origin, sizeof(origin), NULL) < 0 ||
	    strcmp(origin, host) != 0) {
		w->rejected++;
		return;
	}
	if (strcmp(host, mb->host) == 0)
		return;
	if (!first_time(mb, a.incident)) {
		w->duplicates++;
		return;
	}
	w->alerts++;
	if (received_rt >= a.sent_realtime_ns)
		sample(&w->deliver, received_rt - a.sent_realtime_ns);
	if (!delay_ns) {
		answer(mb, a.incident, received);
		return;
	}
	if (w->qlen == QUEUE_MAX) {
		w->late++; /* the queue is full: answered now */
		answer(mb, a.incident, received);
		return;
	}
	struct pending *p = &w->queue[(w->qhead + w->qlen++) % QUEUE_MAX];

	p->mb = mb;
	p->due = received + delay_ns;
	p->received = received;
	snprintf(p->incident, sizeof(p->incident), "%s", a.incident);
}

static void on_message(struct mosquitto *mosq, void *userdata, const struct mosquitto_message *m)
{
	struct member *mb = userdata;
	uint64_t received = clock_ns(CLOCK_MONOTONIC), received_rt = clock_ns(CLOCK_REALTIME);
	size_t plen = strlen(prefix), glen = strlen(group);
	const char *kind, *host;
	char why[160];

	if (!m->topic || m->payloadlen < 0 || m->payloadlen > PROTO_FLEET_MAX ||
	    strncmp(m->topic, prefix, plen) != 0 || m->topic[plen] != '/' ||
	    strncmp(m->topic + plen + 1, group, glen) != 0 || m->topic[plen + 1 + glen] != '/') {
		mb->w->rejected++;
		return;
	}
	kind = m->topic + plen + glen + 2;
	host = strchr(kind, '/');
	if (!host || !proto_fleet_name_valid(host + 1)) {
		mb->w->rejected++;
		return;
	}
	host++;
	if (strncmp(kind, PROTO_FLEET_TOPIC_ALERT "/", sizeof(PROTO_FLEET_TOPIC_ALERT)) == 0) {
		on_alert(mb, m, host, received, received_rt);
	} else if (strncmp(kind, PROTO_FLEET_TOPIC_RESULT "/", sizeof(PROTO_FLEET_TOPIC_RESULT)) ==
		   0) {
		struct proto_fleet_result r;

		mb->w->results++;
		if (parse_all && proto_fleet_result_parse(m->payload, (size_t)m->payloadlen, &r,
							  why, sizeof(why)) < 0)
			mb->w->rejected++;
	} else if (strncmp(kind, PROTO_FLEET_TOPIC_PRESENCE "/",
			   sizeof(PROTO_FLEET_TOPIC_PRESENCE)) == 0) {
		struct proto_fleet_presence p;

		mb->w->presences++;
		if (parse_all && m->payloadlen > 0 &&
		    proto_fleet_presence_parse(m->payload, (size_t)m->payloadlen, &p, why,
					       sizeof(why)) < 0)
			mb->w->rejected++;
	} else {
		mb->w->rejected++;
	}
}

static void flush(struct member *mb)
{
	if (mb->connected && mosquitto_want_write(mb->mosq) &&
	    mosquitto_loop_write(mb->mosq, 1) != MOSQ_ERR_SUCCESS)
		mb->connected = false;
}

/* Every member unsubscribed (or gave up on it), so that nothing more arrives for it. */
static bool all_unsubscribed(const struct worker *w)
{
	for (size_t i = 0; i < w->n; i++)
		if (!w->members[i]->unsubscribed && mosquitto_socket(w->members[i]->mosq) >= 0)
			return false;
	return true;
}

/*
 * Leaves as latencyd does: the retained "offline", then DISCONNECT (no last will). Each
 * member unsubscribes first and reads what was on its way: a socket closed with unread
 * data is reset, the broker may lose the DISCONNECT and publish the will as well.
 */
static void leave(struct worker *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct member *mb = w->members[i];
		struct pollfd pfd = {.fd = mosquitto_socket(mb->mosq), .events = POLLIN};

		if (pfd.fd < 0)
			continue;
		for (int k = 0; k < 1000 && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN); k++)
			if (mosquitto_loop_read(mb->mosq, 1) != MOSQ_ERR_SUCCESS)
				break;
		if (mosquitto_socket(mb->mosq) < 0)
			continue;
		publish_presence(mb, PROTO_FLEET_OFFLINE);
		for (int k = 0; k < 100 && mosquitto_want_write(mb->mosq); k++)
			if (mosquitto_loop_write(mb->mosq, 1) != MOSQ_ERR_SUCCESS)
				break;
		mosquitto_disconnect(mb->mosq);
	}
}

static void *run(void *arg)
{
	struct worker *w = arg;
	uint64_t next_misc = 0, leave_at = 0;

	for (;;) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		int timeout = 100;

		if (!leave_at && __atomic_load_n(&stopping, __ATOMIC_RELAXED)) {
			for (size_t i = 0; i < w->n; i++) {
				struct member *mb = w->members[i];
				char t[3][TOPIC_MAX];
				char *subs[3] = {t[0], t[1], t[2]};

				if (mosquitto_socket(mb->mosq) < 0)
					continue;
				w->connected_at_stop++;
				topics(mb, t);
				mosquitto_unsubscribe_multiple(mb->mosq, NULL, 3, subs, NULL);
			}
			leave_at = now + 3 * MISC_NS;
		}
		if (leave_at && (now >= leave_at || all_unsubscribed(w)))
			break;
		if (w->qlen) {
			uint64_t due = w->queue[w->qhead].due;

			timeout = due <= now ? 0 : (int)((due - now) / 1000000) + 1;
			if (timeout > 100)
				timeout = 100;
		}
		for (size_t i = 0; i < w->n; i++) {
			struct mosquitto *m = w->members[i]->mosq;

			w->pfd[i].fd = mosquitto_socket(m);
			w->pfd[i].events = POLLIN | (mosquitto_want_write(m) ? POLLOUT : 0);
			w->pfd[i].revents = 0;
		}
		if (poll(w->pfd, w->n, timeout) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; i < w->n; i++) {
			struct member *mb = w->members[i];

			if (w->pfd[i].fd < 0)
				continue;
			if (w->pfd[i].revents & (POLLIN | POLLERR | POLLHUP)) {
				/* Its callbacks queue the answers: written below, at once. */
				if (mosquitto_loop_read(mb->mosq, 1) != MOSQ_ERR_SUCCESS)
					mb->connected = false;
			}
			flush(mb);
		}
		now = clock_ns(CLOCK_MONOTONIC);
		while (w->qlen && w->queue[w->qhead].due <= now) {
			struct pending *p = &w->queue[w->qhead];

			answer(p->mb, p->incident, p->received);
			flush(p->mb);
			w->qhead = (w->qhead + 1) % QUEUE_MAX;
			w->qlen--;
		}
		if (now < next_misc || leave_at)
			continue;
		next_misc = now + MISC_NS;
		for (size_t i = 0; i < w->n; i++) {
			struct member *mb = w->members[i];

			if (mosquitto_socket(mb->mosq) >= 0) {
				mosquitto_loop_misc(mb->mosq);
				continue;
			}
			/* Lost: again every second, as latencyd's backoff starts. */
			if (now >= mb->reconnect_at) {
				mb->reconnect_at = now + MISC_NS;
				w->reconnects++;
				mosquitto_reconnect(mb->mosq);
			}
		}
	}
	leave(w);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The same nearest-rank quantile as bench/fleet-bench.sh's pct. */
static uint64_t quantile(const struct samples *s, int p)
{
	return s->n ? s->v[(s->n - 1) * (size_t)p / 100] : 0;
}

static void merge(struct samples *into, const struct samples *from)
{
	for (size_t i = 0; i < from->n; i++)
		sample(into, from->v[i]);
}

static void read_boot_id(void)
{
	FILE *fp = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (fp) {
		if (fgets(boot_id, sizeof(boot_id), fp))
			boot_id[strcspn(boot_id, "\n")] = 0;
		fclose(fp);
	}
}

static struct member *member_new(int index, struct worker *w, const char *host, int port)
{
	struct member *mb = calloc(1, sizeof(*mb));
	char id[PROTO_FLEET_NAME_MAX + 16], *text = NULL;
	int r;

	if (!mb)
		return NULL;
	mb->w = w;
	snprintf(mb->host, sizeof(mb->host), "sim%03d", index);
	snprintf(id, sizeof(id), "latencyd-%s", mb->host);
	if (proto_fleet_topic(mb->presence_topic, sizeof(mb->presence_topic), prefix, group,
			      PROTO_FLEET_TOPIC_PRESENCE, mb->host) < 0 ||
	    !(mb->mosq = mosquitto_new(id, true, mb)))
		goto fail;
	mosquitto_int_option(mb->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
	mosquitto_int_option(mb->mosq, MOSQ_OPT_TCP_NODELAY, 1);
	mosquitto_connect_callback_set(mb->mosq, on_connect);
	mosquitto_disconnect_callback_set(mb->mosq, on_disconnect);
	mosquitto_subscribe_callback_set(mb->mosq, on_subscribe);
	mosquitto_unsubscribe_callback_set(mb->mosq, on_unsubscribe);
	mosquitto_message_callback_set(mb->mosq, on_message);
	if (presence_text(mb, PROTO_FLEET_OFFLINE, &text) < 0 ||
	    mosquitto_will_set_v5(mb->mosq, mb->presence_topic, (int)strlen(text), text, 1, true,
				  NULL) != MOSQ_ERR_SUCCESS)
		goto fail;
	free(text);
	text = NULL;
	r = mosquitto_connect(mb->mosq, host, port, KEEPALIVE_SEC);
	if (r != MOSQ_ERR_SUCCESS) {
		fprintf(stderr, "fleet-sim: %s: cannot connect to %s:%d: %s\n", mb->host, host,
			port, mosquitto_strerror(r));
		goto fail;
	}
	mb->connected = true;
	return mb;
fail:
	free(text);
	if (mb->mosq)
		mosquitto_destroy(mb->mosq);
	free(mb);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: fleet-sim [-t THREADS] [-d MS] [-p] [-f FIRST] HOST PORT PREFIX "
			"GROUP COUNT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int threads = 4, first = 1, count, port, opt, sig;
	struct worker *w;
	struct samples deliver = {0}, answered = {0};
	uint64_t t[10] = {0}, connected = 0;
	struct rusage ru;
	sigset_t set;

	while ((opt = getopt(argc, argv, "t:d:pf:")) != -1) {
		switch (opt) {
		case 't':
			threads = atoi(optarg);
			break;
		case 'd':
			delay_ns = (uint64_t)strtoull(optarg, NULL, 10) * 1000000;
			break;
		case 'p':
			parse_all = true;
			break;
		case 'f':
			first = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 5)
		usage();
	port = atoi(argv[optind + 1]);
	prefix = argv[optind + 2];
	group = argv[optind + 3];
	count = atoi(argv[optind + 4]);
	if (threads < 1 || count < 1 || first < 0 || !proto_fleet_name_valid(prefix) ||
	    !proto_fleet_name_valid(group))
		usage();
	if (threads > count)
		threads = count;
	/* The threads never take a signal: main waits for one. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	read_boot_id();
	since_ns = clock_ns(CLOCK_REALTIME);
	mosquitto_lib_init();
	w = calloc((size_t)threads, sizeof(*w));
	if (!w)
		return 1;
	for (int i = 0; i < threads; i++) {
		w[i].members = calloc((size_t)count / (size_t)threads + 1, sizeof(*w[i].members));
		w[i].pfd = calloc((size_t)count / (size_t)threads + 1, sizeof(*w[i].pfd));
		w[i].queue = delay_ns ? calloc(QUEUE_MAX, sizeof(*w[i].queue)) : NULL;
		if (!w[i].members || !w[i].pfd || (delay_ns && !w[i].queue))
			return 1;
	}
	for (int i = 0; i < count; i++) {
		struct worker *wk = &w[i % threads];
		struct member *mb = member_new(first + i, wk, argv[optind], port);

		if (!mb)
			return 1;
		wk->members[wk->n++] = mb;
	}
	for (int i = 0; i < threads; i++)
		if (pthread_create(&w[i].thread, NULL, run, &w[i]) != 0)
			return 1;
	for (int i = 0; i < 300 && __atomic_load_n(&n_ready, __ATOMIC_RELAXED) < count; i++) {
		struct timespec tick = {.tv_nsec = 100 * 1000 * 1000};

		nanosleep(&tick, NULL);
	}
	printf("ready %d\n", __atomic_load_n(&n_ready, __ATOMIC_RELAXED));
	fflush(stdout);

	sigwait(&set, &sig);
	__atomic_store_n(&stopping, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		for (size_t j = 0; j < w[i].n; j++) {
			mosquitto_destroy(w[i].members[j]->mosq);
			free(w[i].members[j]);
		}
		connected += w[i].connected_at_stop;
		t[0] += w[i].alerts;
		t[1] += w[i].sent;
		t[2] += w[i].send_failed;
		t[3] += w[i].results;
		t[4] += w[i].presences;
		t[5] += w[i].duplicates;
		t[6] += w[i].rejected;
		t[7] += w[i].lost;
		t[8] += w[i].reconnects;
		t[9] += w[i].late;
		merge(&deliver, &w[i].deliver);
		merge(&answered, &w[i].answer);
	}
	qsort(deliver.v, deliver.n, sizeof(*deliver.v), cmp_u64);
	qsort(answered.v, answered.n, sizeof(*answered.v), cmp_u64);
	getrusage(RUSAGE_SELF, &ru);
	printf("members=%d threads=%d connected=%" PRIu64 " alerts=%" PRIu64
	       " results_sent=%" PRIu64 " send_failed=%" PRIu64 " results_seen=%" PRIu64
	       " presences_seen=%" PRIu64 " duplicates=%" PRIu64 " rejected=%" PRIu64
	       " lost=%" PRIu64 " reconnects=%" PRIu64 " queue_full=%" PRIu64
	       " deliver_p50_ns=%" PRIu64 " deliver_p99_ns=%" PRIu64 " deliver_max_ns=%" PRIu64
	       " answer_p50_ns=%" PRIu64 " answer_p99_ns=%" PRIu64 " answer_max_ns=%" PRIu64
	       " cpu_user_ms=%ld cpu_sys_ms=%ld\n",
	       count, threads, connected, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8],
	       t[9], quantile(&deliver, 50), quantile(&deliver, 99), quantile(&deliver, 100),
	       quantile(&answered, 50), quantile(&answered, 99), quantile(&answered, 100),
	       ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000,
	       ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000);
	mosquitto_lib_cleanup();
	return 0;
}
