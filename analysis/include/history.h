/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * history.c: how much history a snapshot holds, counted per stream by the snapshot reader
 * (snapshot.h: AN_WANT_HISTORY, alone or in the same pass as the analysis), and the
 * paper's equation for the window a buffer gives:
 *
 *   window = buffer bytes per CPU / (bytes per event x events per second on that CPU)
 *
 * A snapshot has one stream file per channel and CPU. Each stream's span is the time from
 * its first to its last event. A stream whose buffer filled up has overwritten its oldest
 * events: the snapshot is complete only back to the start of the shortest such span. When
 * no buffer filled up, nothing was lost and the longest span is the window (a lower bound:
 * everything since the session started is there).
 */
#ifndef LATENCY_ANALYSIS_HISTORY_H
#define LATENCY_ANALYSIS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The recorder's channel of the block devices' names (the module's
 * latency_tracker_device_name, kept from the session's start): in every snapshot, but not
 * history, so left out of the window and the rates.
 */
#define HISTORY_NAMES_CHANNEL "names"

/* Streams a catalog entry lists; its totals cover them all. */
#define HISTORY_STREAMS_LISTED 64

struct history_stream {
	char *path;	  /* the stream file */
	char channel[64]; /* file name without its _CPU suffix */
	int cpu;	  /* -1 when the file name has no _CPU suffix */
	uint64_t events, bytes;
	int64_t first_ns, last_ns; /* event times, ns from the clock's origin */
	const void *key;	   /* the reader's stream object */
};

struct history {
	struct history_stream *streams;
	size_t n;
	/* Filled by history_summarize(). */
	uint64_t events, bytes;
	uint64_t window_ns; /* how far back the snapshot is complete */
	bool wrapped;	    /* some buffer was full: older events were overwritten */
	long busiest;	    /* the stream filling its buffer fastest, -1 if none */
	double events_per_sec, bytes_per_event; /* of the busiest stream */
};

/* Totals, window and rates, for buffers of CAPACITY bytes in SUBBUF_SIZE sub-buffers. */
void history_summarize(struct history *h, uint64_t capacity, uint64_t subbuf_size);
/* The paper's equation; 0 when the rate is unknown. */
uint64_t history_expected_ns(uint64_t capacity, double bytes_per_event, double events_per_sec);
/* From a stream's first event to its last; 0 with fewer than two. */
uint64_t history_span(const struct history_stream *s);
void history_free(struct history *h);

#endif /* LATENCY_ANALYSIS_HISTORY_H */
