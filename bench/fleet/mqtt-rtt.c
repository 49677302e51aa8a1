// SPDX-License-Identifier: GPL-2.0-only
/*
 * The broker's bare round trip, as latencyd's fleet uses it: one libmosquitto client
 * publishes QoS 1 messages to a topic it subscribes to, one at a time, and times each from
 * mosquitto_publish() to its delivery. Prints one line per message in ns (sorted by the
 * caller).
 * Usage: mqtt-rtt HOST PORT COUNT
 */
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int received, subscribed;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static void on_message(struct mosquitto *m, void *ud, const struct mosquitto_message *msg)
{
	pthread_mutex_lock(&lock);
	received++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
}

static void on_subscribe(struct mosquitto *m, void *ud, int mid, int n, const int *qos)
{
	pthread_mutex_lock(&lock);
	subscribed = 1;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
}

static void on_connect(struct mosquitto *m, void *ud, int rc)
{
	if (rc == 0)
		mosquitto_subscribe(m, NULL, "latencyd-bench/rtt", 1);
}

/* Waits until *v reaches want, at most 5 s; 0 or -1. */
static int wait_for(int *v, int want)
{
	struct timespec until;
	int r = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&lock);
	while (*v < want && r == 0)
		r = pthread_cond_timedwait(&cond, &lock, &until);
	pthread_mutex_unlock(&lock);
	return *v >= want ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct mosquitto *m;
	int count;

	if (argc != 4) {
		fprintf(stderr, "usage: mqtt-rtt HOST PORT COUNT\n");
		return 2;
	}
	count = atoi(argv[3]);
	mosquitto_lib_init();
	m = mosquitto_new(NULL, true, NULL);
	if (!m)
		return 1;
	/* As latencyd's client: MQTT v5, no Nagle (a QoS 1 round trip is two small writes). */
	mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
	mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
	mosquitto_connect_callback_set(m, on_connect);
	mosquitto_subscribe_callback_set(m, on_subscribe);
	mosquitto_message_callback_set(m, on_message);
	if (mosquitto_connect(m, argv[1], atoi(argv[2]), 30) != MOSQ_ERR_SUCCESS ||
	    mosquitto_loop_start(m) != MOSQ_ERR_SUCCESS || wait_for(&subscribed, 1) < 0) {
		fprintf(stderr, "mqtt-rtt: cannot connect and subscribe to %s:%s\n", argv[1],
			argv[2]);
		return 1;
	}
	for (int i = 0; i < count; i++) {
		char payload[64];
		unsigned long long t0;

		snprintf(payload, sizeof(payload), "{\"n\":%d}", i);
		t0 = now_ns();
		mosquitto_publish(m, NULL, "latencyd-bench/rtt", (int)strlen(payload), payload, 1,
				  false);
		if (wait_for(&received, i + 1) < 0) {
			fprintf(stderr, "mqtt-rtt: message %d not delivered\n", i);
			return 1;
		}
		printf("%llu\n", now_ns() - t0);
	}
	mosquitto_disconnect(m);
	mosquitto_loop_stop(m, false);
	mosquitto_destroy(m);
	mosquitto_lib_cleanup();
	return 0;
}
