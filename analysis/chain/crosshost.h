/* SPDX-License-Identifier: GPL-2.0-only */
/* crosshost.c: an incident's chains followed into the hosts that sent the waking packets. */
#ifndef LATENCY_ANALYSIS_CROSSHOST_H
#define LATENCY_ANALYSIS_CROSSHOST_H

#include <stddef.h>
#include <stdint.h>

#include "chain.h"

struct an_crosshost_host {
	const char *name;
	struct an_log *log; /* analysed: read here, the origin's causes extended */
};

/*
 * CAUSES (struct an_cause) of hosts[origin] extended across the hosts: each link woken by a
 * packet that another host sent goes on with that sender's links (an_link.log/host), the
 * crossing and its clock alignment in an_cause.crossings, what cannot be followed in its
 * notes.
 */
int an_crosshost(const struct an_crosshost_host *hosts, size_t n, size_t origin,
		 struct an_vec *causes);
/* Of the alert's latency, what the other hosts' sides took (ns). */
uint64_t an_cross_host_ns(const struct an_cause *c);

/* A host's own share of a wait that crossed hosts; the outputs name at most this many. */
#define AN_HOST_SPLIT_MAX 16
struct an_host_time {
	const char *host;
	uint64_t ns;
};
/*
 * an_cross_host_ns() split by host, each host's own time: what its side took less what it
 * in turn waited for on other hosts (a middle tier's share is not its back end's). Into
 * OUT, at most MAX, largest first; how many. The origin appears only when a wait on
 * another host came back to it (that host waited for the origin).
 */
size_t an_cross_host_split(const struct an_cause *c, struct an_host_time *out, size_t max);

#endif /* LATENCY_ANALYSIS_CROSSHOST_H */
