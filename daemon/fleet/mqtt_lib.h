/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mqtt_lib.c: libmosquitto, opened when a fleet is configured, not linked. Linked, it and
 * the TLS libraries it needs (libssl, libcrypto) are mapped and relocated in every
 * latencyd, fleet or not: about 1.7 MiB resident, locked with realtime.lock_memory, for
 * nothing on a host without a fleet. systemd opens its optional libraries the same way.
 */
#ifndef LATENCYD_MQTT_LIB_H
#define LATENCYD_MQTT_LIB_H

#include <stddef.h>

#include <mosquitto.h>

/* The library's file name (its soname: the ABI the header above describes). */
#define MQTT_LIB_SONAME "libmosquitto.so.1"

/* The functions the fleet client calls, with libmosquitto's own types. */
struct mqtt_lib {
	__typeof__(mosquitto_lib_init) *lib_init;
	__typeof__(mosquitto_lib_cleanup) *lib_cleanup;
	__typeof__(mosquitto_new) *new_client;
	__typeof__(mosquitto_destroy) *destroy;
	__typeof__(mosquitto_connect_callback_set) *connect_callback_set;
	__typeof__(mosquitto_disconnect_callback_set) *disconnect_callback_set;
	__typeof__(mosquitto_message_callback_set) *message_callback_set;
	__typeof__(mosquitto_reconnect_delay_set) *reconnect_delay_set;
	__typeof__(mosquitto_username_pw_set) *username_pw_set;
	__typeof__(mosquitto_tls_set) *tls_set;
	__typeof__(mosquitto_connect_async) *connect_async;
	__typeof__(mosquitto_disconnect) *disconnect;
	__typeof__(mosquitto_subscribe) *subscribe;
	__typeof__(mosquitto_publish) *publish;
	__typeof__(mosquitto_strerror) *strerror;
	__typeof__(mosquitto_connack_string) *connack_string;
	__typeof__(mosquitto_reason_string) *reason_string;
	__typeof__(mosquitto_int_option) *int_option;
	__typeof__(mosquitto_publish_v5) *publish_v5;
	__typeof__(mosquitto_will_set) *will_set;
	__typeof__(mosquitto_subscribe_callback_set) *subscribe_callback_set;
	__typeof__(mosquitto_log_callback_set) *log_callback_set;
	__typeof__(mosquitto_property_add_int32) *property_add_int32;
	__typeof__(mosquitto_property_free_all) *property_free_all;
	__typeof__(mosquitto_threaded_set) *threaded_set;
	__typeof__(mosquitto_loop_forever) *loop_forever;
	__typeof__(mosquitto_reconnect) *reconnect;
};

/*
 * Opens the library once (later calls return the same table); NULL when it cannot be
 * opened or lacks a function, WHY saying which in a sentence. Never closed: its threads
 * and callbacks may outlive any one fleet client.
 */
const struct mqtt_lib *mqtt_lib_open(char *why, size_t whylen);

#endif /* LATENCYD_MQTT_LIB_H */
