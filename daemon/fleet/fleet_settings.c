/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What latencyd-fleet is started with (its settings record, fleet_wire.h), from fleet.*:
 * read here, in latencyd, as root, so that the helper, without root, needs neither the
 * configuration nor the password file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "fleet_spawn.h"
#include "fleet_wire.h"
#include "log.h"
#include "thread.h"

/* The first line of the password file: the file is the secret, never the configuration.
 * Read here, as root: the file may stay root's alone. */
static int read_password(const char *path, char *buf, size_t size)
{
	FILE *fp = fopen(path, "re");
	int r = 0;

	if (!fp)
		return -errno;
	if (!fgets(buf, (int)size, fp))
		r = ferror(fp) ? -EIO : -ENODATA;
	else if (!strchr(buf, '\n') && !feof(fp))
		r = -ENAMETOOLONG;
	fclose(fp);
	buf[r < 0 ? 0 : strcspn(buf, "\r\n")] = 0;
	return r;
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

/*
 * fleet.host, or the short hostname. Cut from a longer name, it is said: db1.paris.example
 * and db1.tokyo.example are both db1, one MQTT client id (latencyd-db1), and the broker
 * closes one's connection each time the other connects.
 */
static int resolve_host(const struct conf_fleet *c, char *host, size_t size)
{
	char name[HOST_NAME_MAX + 1] = "", full[HOST_NAME_MAX + 1];

	if (c->host[0]) {
		snprintf(host, size, "%s", c->host);
		return 0;
	}
	if (gethostname(name, sizeof(name)) < 0)
		return -errno;
	snprintf(full, sizeof(full), "%s", name);
	name[strcspn(name, ".")] = 0; /* the short name, as relayd's tree has it */
	if (!proto_fleet_name_valid(name)) {
		log_warnx("fleet.host: the hostname '%s' is not a fleet name: set fleet.host",
			  name);
		return -EINVAL;
	}
	if (strcmp(name, full) != 0)
		log_info("fleet.host is not set: this host is %s in the fleet (MQTT client id "
			 "latencyd-%s), its hostname %s up to the first dot; set fleet.host if "
			 "another host's name starts the same",
			 name, name, full);
	snprintf(host, size, "%s", name);
	return 0;
}

#define COPY(field, value, key)                                                                    \
	do {                                                                                       \
		if (strlen(value) >= sizeof(field))                                                \
			return log_warnx("fleet." key ": too long"), -ENAMETOOLONG;                \
		snprintf(field, sizeof(field), "%s", value);                                       \
	} while (0)

int fleet_settings(struct fleet_wire_settings *s, const struct conf_fleet *c)
{
	bool tls;
	int r;

	s->type = FLEET_WIRE_SETTINGS;
	COPY(s->user, c->user, "user");
	COPY(s->broker, c->broker, "broker");
	COPY(s->username, c->username, "username");
	COPY(s->ca_file, c->ca_file, "ca_file");
	COPY(s->cert_file, c->cert_file, "cert_file");
	COPY(s->key_file, c->key_file, "key_file");
	snprintf(s->group, sizeof(s->group), "%s", c->group);
	snprintf(s->prefix, sizeof(s->prefix), "%s", c->topic_prefix);
	read_boot_id(s->boot_id, sizeof(s->boot_id));
	s->record_peers = c->record_peers;
	s->max_age_ns = c->max_age_ns;
	/* The protocol counts whole seconds (every_s), rounded up: never renewed more often than
	 * configured. */
	s->presence_every_s = (uint32_t)((c->presence_every_ns + 999999999) / 1000000000);
	s->since_realtime_ns = realtime_ns();
	r = resolve_host(c, s->host, sizeof(s->host));
	if (r < 0)
		return r;
	r = conf_broker_parse(c->broker, s->broker_host, sizeof(s->broker_host), &s->port, &tls);
	if (r < 0)
		return r; /* checked when the file was read */
	s->tls = tls;
	if (c->password_file[0] &&
	    (r = read_password(c->password_file, s->password, sizeof(s->password))) < 0)
		return log_warn_errno(r, "fleet.password_file: cannot read %s", c->password_file);
	return 0;
}
