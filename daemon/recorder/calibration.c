// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calibration record. Without an alert there is no snapshot to measure the history
 * from: one calibration record this long after start measures the event rate, from which
 * status shows the window the buffers hold (and session.history sizes them). Long enough
 * for the session's start-up to be past, short enough to answer soon after a (re)start.
 * It is a sample, the newest CALIBRATE_PACKETS packets of each stream, when the buffers
 * have at least CALIBRATE_SAMPLE_MIN of them: the rate needs no more, and the record is
 * the waiter's, which an alert may have to wait for. Fewer packets are recorded whole: a
 * sample would be a quarter of them or more, and the newest two of four 4 KiB packets once
 * measured 819 events/s x 52 bytes from an app writing about 450 x 28.
 *
 * Three steps, two threads: the main loop's timer asks the waiter; the waiter's thread
 * records when no alert or request waits (calibration_if_idle), so that no other thread
 * ever holds the slot for a record and the thread never waits on one; the main loop hands
 * the record to the snapshot reader, which measures it and deletes it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "fsutil.h"
#include "waiter_internal.h"

#define CALIBRATE_USEC	     (10 * 1000000ULL)
#define CALIBRATE_DIR	     "calibration"
#define CALIBRATE_PACKETS    2
#define CALIBRATE_SAMPLE_MIN (4 * CALIBRATE_PACKETS)

/*
 * Asks the thread for a calibration record to DIR (DIR/calibration-DATE-N) of at most
 * MAX_SIZE bytes (0: whole), taken when no alert or request waits; dropped once a local
 * snapshot was recorded first (its own history is measured). Ends as WAITER_CALIBRATED.
 */
static int ask_waiter(struct waiter *w, const char *dir, uint64_t max_size)
{
	uint64_t one = 1;

	if (strlen(dir) >= sizeof(w->calibrate_dir))
		return -ENAMETOOLONG;
	pthread_mutex_lock(&w->lock);
	w->calibrate = true;
	snprintf(w->calibrate_dir, sizeof(w->calibrate_dir), "%s", dir);
	w->calibrate_size = max_size;
	pthread_mutex_unlock(&w->lock);
	return write(w->request_fd, &one, sizeof(one)) < 0 ? -errno : 0;
}

/*
 * The calibration record, when one is asked for and nothing else waits (the caller saw the
 * notification file drained). An alert that comes meanwhile waits for the rest of it, as
 * it would for another alert's record: it is a sample, a few packets per stream, so that
 * this is short.
 */
void calibration_if_idle(struct waiter *w)
{
	struct waiter_result *res;
	char dir[PATH_MAX];
	uint64_t size;
	int r;

	pthread_mutex_lock(&w->lock);
	if (!w->calibrate || w->n_requests || w->n_peers) {
		pthread_mutex_unlock(&w->lock);
		return;
	}
	w->calibrate = false;
	memcpy(dir, w->calibrate_dir, sizeof(dir));
	size = w->calibrate_size;
	pthread_mutex_unlock(&w->lock);
	res = waiter_result_get(w, WAITER_CALIBRATED, 0);
	if (!res) {
		waiter_nomem(w); /* no calibration: measured from the first snapshot instead */
		return;
	}
	snprintf(res->name, sizeof(res->name), "calibration");
	if (!waiter_record_begins(w, res, now_ns())) {
		waiter_result_free(res); /* the stop gave up on sessiond: none waits for it */
		return;
	}
	r = flight_slot_lock(w->slot); /* FLIGHT_ERR_SESSIOND_BUSY: said as failed */
	if (r == 0) {
		if (!w->slot->flight) {
			r = FLIGHT_ERR_NO_SESSION;
		} else {
			/* Before the record, for a stop that gives up on it (give_up()). */
			res->output = flight_output_get(w->slot->flight);
			r = flight_record_to(w->slot->flight, dir, "calibration", size, &res->rec);
			/* No room for a packet of every stream (per-user buffers of many users). */
			if (r == -LTTNG_ERR_MAX_SIZE_INVALID && size) {
				size = 0;
				r = flight_record_to(w->slot->flight, dir, "calibration", 0,
						     &res->rec);
			}
		}
		pthread_mutex_unlock(&w->slot->lock);
	}
	if (!waiter_record_over(w)) {
		waiter_result_free(res); /* the stop's now */
		return;
	}
	res->error = r;
	res->sampled = size != 0;
	waiter_push(w, res);
}

void calibration_cancel(struct waiter *w)
{
	pthread_mutex_lock(&w->lock);
	w->calibrate = false;
	pthread_mutex_unlock(&w->lock);
}

/* CALIBRATE_PACKETS of every stream (one per CPU); 0, the whole buffers, when they are few. */
static uint64_t calibrate_size(const struct calibration *cal)
{
	long cpus = get_nprocs_conf();

	if (cal->session->conf->session.num_subbuf < CALIBRATE_SAMPLE_MIN || cpus <= 0)
		return 0;
	return CALIBRATE_PACKETS * session_subbuf_size(cal->session) * (uint64_t)cpus;
}

/* Once, unless a snapshot was measured first; later if there is no session yet. */
static int on_calibrate(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct calibration *cal = userdata;
	int r;

	if (cal->measured)
		return 0;
	if (!session_present(cal->session)) {
		sd_event_source_set_time(s, usec + CALIBRATE_USEC);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	log_debug("asking for a calibration record to measure the history window");
	rm_tree(cal->scratch); /* a calibration that was never read (stopped meanwhile) */
	r = ask_waiter(cal->waiter, cal->scratch, calibrate_size(cal));
	if (r < 0)
		log_warn_errno(r, "cannot ask for the calibration record");
	return 0;
}

void calibration_init(struct calibration *cal, struct session *s, const char *catalog_dir,
		      recorder_event_fn emit, void *userdata)
{
	*cal = (struct calibration){.session = s, .emit = emit, .userdata = userdata};
	snprintf(cal->scratch, sizeof(cal->scratch), "%s/%s", catalog_dir, CALIBRATE_DIR);
	rm_tree(cal->scratch); /* left by a crash during a calibration */
}

int calibration_start(struct calibration *cal, sd_event *event, struct waiter *w,
		      struct history_worker *h, uint64_t now)
{
	int r;

	cal->event = event;
	cal->waiter = w;
	cal->history = h;
	r = sd_event_add_time(event, &cal->timer, CLOCK_MONOTONIC, now + CALIBRATE_USEC, 0,
			      on_calibrate, cal);
	if (r < 0)
		return r;
	sd_event_source_set_description(cal->timer, "history-calibration");
	return 0;
}

void calibration_ended(struct calibration *cal, const struct waiter_result *res)
{
	struct recorder_event ev = {.kind = RECORDER_HISTORY};
	struct session *s = cal->session;
	/* The buffers of the session that recorded it: a reload may have re-sized them since. */
	const struct flight_output *out = res->output;
	char err[256];
	int r = res->error;

	if (r >= 0) {
		log_info("calibration record: %s in %" PRIu64 " us",
			 res->sampled ? "a sample of the buffers" : "the whole buffers",
			 res->rec.duration_ns / 1000);
		/* The reader exists: the calibration timer is started with it. */
		r = history_worker_submit(cal->history, 0, cal->scratch,
					  out->subbuf_size * out->num_subbuf, out->subbuf_size,
					  res->sampled, NULL,
					  cal->session->conf->analysis.max_memory);
		if (r == 0)
			return;
		snprintf(err, sizeof(err), "cannot queue the calibration record: %s", strerror(-r));
	} else {
		snprintf(err, sizeof(err), "the calibration record failed: %s", flight_strerror(r));
		if (flight_session_gone(r))
			session_check_soon(s);
	}
	ev.history = (struct recorder_history){.error = r, .err = err};
	cal->emit(&ev, cal->userdata);
}

void calibration_measured(struct calibration *cal)
{
	cal->measured = true;
}

void calibration_again(struct calibration *cal)
{
	uint64_t now;

	cal->measured = false;
	if (cal->timer && sd_event_now(cal->event, CLOCK_MONOTONIC, &now) >= 0) {
		sd_event_source_set_time(cal->timer, now + CALIBRATE_USEC);
		sd_event_source_set_enabled(cal->timer, SD_EVENT_ONESHOT);
	}
}

void calibration_stop(struct calibration *cal)
{
	cal->timer = sd_event_source_disable_unref(cal->timer);
}
