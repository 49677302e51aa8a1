/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sends.c: a log's sent packets, to find where a received one was sent. A TCP segment
 * carrying data is found by its flow and the sequence number of its last byte: a receiver
 * that coalesced segments (GRO) had the data when the segment completing it came. A flow
 * may send more than the 4 GiB its sequence numbers count: they are unwrapped along it, and
 * a segment is looked for in the cycle of the flow's highest sequence sent by the time it
 * was received. A datagram, or a segment without data (an ACK), has no sequence of its own:
 * it is found by all its headers, its flow and length with its IP id (UDP) or its sequence
 * and acknowledgment numbers (TCP), among every sending of its flow, however many.
 * Built once per log (sorting all its packets), each look-up is a binary search.
 */
#ifndef LATENCY_ANALYSIS_SENDS_H
#define LATENCY_ANALYSIS_SENDS_H

#include <stdbool.h>
#include <stdint.h>

#include "an.h"

struct an_sends {
	struct an_map by_flow; /* TCP data: flow key -> index in flows + 1 */
	struct an_vec flows;   /* struct an_sends_flow */
	struct an_vec alike;   /* the other sendings: by headers, then time */
	const struct an_log *log;
	bool built;
};

/* S of LOG built, once (the log's packets' senders found too). 0 or -ENOMEM (S empty). */
int an_sends_build(struct an_sends *s, const struct an_log *log);
void an_sends_free(struct an_sends *s);
/*
 * The first sending in S's log of R (received, in any log) at LATEST at the latest (on S's
 * log's clock): NULL if none. *N: how many sendings of S match it, told apart. A TCP data
 * segment and its retransmissions count as one; with LATEST UINT64_MAX (no time known), one
 * sent again a wrap of the sequence space later counts too. A packet a bridge or router of
 * this host handed on (sent from the run of softirq handlers it was received in here),
 * datagram or segment, is not sent anew and does not count.
 */
const struct an_packet *an_sends_find(const struct an_sends *s, const struct an_packet *r,
				      uint64_t latest, unsigned *n);
/* P (a packet of LOG): when, on LOG's clock; whether LOG sent it (else received it). */
uint64_t an_packet_ts(const struct an_log *log, const struct an_packet *p);
bool an_packet_sent(const struct an_log *log, const struct an_packet *p);

#endif /* LATENCY_ANALYSIS_SENDS_H */
