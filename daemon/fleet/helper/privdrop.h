/* SPDX-License-Identifier: GPL-2.0-only */
/* privdrop.c: latencyd-fleet leaves root for good before it reads anything off the network. */
#ifndef LATENCYD_FLEET_PRIVDROP_H
#define LATENCYD_FLEET_PRIVDROP_H

#include <stddef.h>

/*
 * Becomes USER (its groups too), or nobody when USER does not exist (said in WHY, 0
 * returned); no capability left, none to gain (no_new_privs); no realtime priority, time,
 * niceness below its own or locked memory within reach (their limits 0, also when not
 * root). Not root already: nothing else to drop. AS gets the name of the account this
 * process runs as. -errno, WHY set.
 */
int privdrop(const char *user, char *as, size_t assize, char *why, size_t whylen);

#endif /* LATENCYD_FLEET_PRIVDROP_H */
