// SPDX-License-Identifier: GPL-2.0-only
/* libmosquitto through dlopen(): see mqtt_lib.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "mqtt_lib.h"

static struct mqtt_lib lib;
static const struct mqtt_lib *opened;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

#define SYM(field, name)                                                                           \
	{                                                                                          \
		(void **)&lib.field, #name                                                         \
	}

static const struct {
	void **slot;
	const char *name;
} syms[] = {
	SYM(lib_init, mosquitto_lib_init),
	SYM(lib_cleanup, mosquitto_lib_cleanup),
	SYM(new_client, mosquitto_new),
	SYM(destroy, mosquitto_destroy),
	SYM(connect_callback_set, mosquitto_connect_callback_set),
	SYM(disconnect_callback_set, mosquitto_disconnect_callback_set),
	SYM(message_callback_set, mosquitto_message_callback_set),
	SYM(reconnect_delay_set, mosquitto_reconnect_delay_set),
	SYM(username_pw_set, mosquitto_username_pw_set),
	SYM(tls_set, mosquitto_tls_set),
	SYM(connect_async, mosquitto_connect_async),
	SYM(disconnect, mosquitto_disconnect),
	SYM(subscribe, mosquitto_subscribe),
	SYM(publish, mosquitto_publish),
	SYM(strerror, mosquitto_strerror),
	SYM(connack_string, mosquitto_connack_string),
	SYM(reason_string, mosquitto_reason_string),
	SYM(int_option, mosquitto_int_option),
	SYM(publish_v5, mosquitto_publish_v5),
	SYM(will_set, mosquitto_will_set),
	SYM(subscribe_callback_set, mosquitto_subscribe_callback_set),
	SYM(log_callback_set, mosquitto_log_callback_set),
	SYM(property_add_int32, mosquitto_property_add_int32),
	SYM(property_free_all, mosquitto_property_free_all),
	SYM(threaded_set, mosquitto_threaded_set),
	SYM(loop_forever, mosquitto_loop_forever),
	SYM(reconnect, mosquitto_reconnect),
};

const struct mqtt_lib *mqtt_lib_open(char *why, size_t whylen)
{
	void *h;

	pthread_mutex_lock(&open_lock);
	if (opened)
		goto out;
	h = dlopen(MQTT_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, whylen, "cannot open %s (package libmosquitto1): %s", MQTT_LIB_SONAME,
			 dlerror());
		goto out;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			snprintf(why, whylen,
				 "%s has no %s: not the libmosquitto latencyd was built for",
				 MQTT_LIB_SONAME, syms[i].name);
			dlclose(h);
			goto out;
		}
	}
	opened = &lib;
out:
	pthread_mutex_unlock(&open_lock);
	return opened;
}
