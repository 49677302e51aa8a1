/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fleet_spawn.c: where latencyd-fleet is, and starting it with its two sockets;
 * fleet_settings.c: the settings it is sent first.
 */
#ifndef LATENCYD_FLEET_SPAWN_H
#define LATENCYD_FLEET_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#define FLEET_HELPER_NAME "latencyd-fleet"
#ifndef LATENCYD_LIBEXECDIR /* CMakeLists.txt says where it is installed */
#define LATENCYD_LIBEXECDIR "/usr/libexec/latencyd"
#endif

struct fleet_child {
	pid_t pid;
	int request_fd, event_fd; /* our ends (fleet_wire.h) */
};

/* Beside latencyd's own executable, else in LATENCYD_LIBEXECDIR; -errno if neither. */
int fleet_helper_path(char *buf, size_t size);
/* Started, not waited for; -errno. */
int fleet_spawn(const char *path, struct fleet_child *c);
void fleet_child_close(struct fleet_child *c);
/* "exited with status 1", "killed by signal 11 (Segmentation fault)". */
void fleet_exit_text(int status, char *buf, size_t size);

struct conf_fleet;
struct fleet_wire_settings;
/* S from C, with the host name resolved and the password file read; -errno, logged. */
int fleet_settings(struct fleet_wire_settings *s, const struct conf_fleet *c);

#endif /* LATENCYD_FLEET_SPAWN_H */
