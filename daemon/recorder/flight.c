// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LTTng flight-recorder session. The session is created without an output, and each
 * record names its output: the same session can then go to relayd and, when relayd fails,
 * to the local directory, and every snapshot gets a directory named after its catalog id.
 * Both outputs are built once at creation so that a record costs one call into sessiond.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "flight.h"
#include "history.h"
#include "log.h"
#include "relayd_probe.h"

/*
 * After relayd failed, records go to the local directory at once for this long, doubled at
 * each failure in a row: an outage costs one wait of output.relayd_timeout, not one per
 * record, and a relayd that comes back is used again within RETRY_MAX_NS.
 */
#define RETRY_MIN_NS (1000000000ULL)
#define RETRY_MAX_NS (60 * 1000000000ULL)

/* A flight_output and its count: one reference the session's, one each result's that keeps it. */
struct output_ref {
	_Atomic unsigned long refs;
	struct flight_output o;
	char *local_dir, *relayd_url;
};

struct flight {
	char *session;
	struct output_ref *output;
	struct lttng_snapshot_output *local;
	struct lttng_snapshot_output *relayd; /* NULL: local only */
	/*
	 * The first choice of output (relayd if any, else the local directory) is the
	 * session's own snapshot output, added once: a record to it sends only the snapshot's
	 * name, and sessiond takes its output as it is instead of building one from URLs for
	 * every record, which is most of its work between our request and the record's start.
	 * NULL: it could not be added, records carry their output.
	 */
	struct lttng_snapshot_output *named;
	bool fallback_local;
	bool replaced;	      /* a session of that name was there before */
	uint64_t max_size;    /* of every output */
	char relayd_dir[256]; /* the session's directory on relayd, "" if unknown */
	/* Each record to relayd is preceded by a probe of it (relayd_probe.h). */
	struct relayd_addr relayd_addr;
	bool probe;		  /* relayd_addr resolved */
	char unprobed[320];	  /* !probe: why */
	uint64_t relayd_timeout;  /* ns */
	unsigned relayd_failures; /* in a row */
	uint64_t relayd_retry;	  /* CLOCK_MONOTONIC: relayd is not tried before */
	uint64_t relayd_failed_at;
	char relayd_why[320]; /* why relayd last failed */
};

static struct output_ref *output_ref_new(const struct flight_settings *s)
{
	struct output_ref *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	atomic_init(&o->refs, 1);
	o->local_dir = strdup(s->local_dir);
	o->relayd_url = s->relayd_url ? strdup(s->relayd_url) : NULL;
	if (!o->local_dir || (s->relayd_url && !o->relayd_url)) {
		free(o->local_dir);
		free(o->relayd_url);
		free(o);
		return NULL;
	}
	o->o = (struct flight_output){
		.local_dir = o->local_dir,
		.relayd_url = o->relayd_url,
		.subbuf_size = s->subbuf_size,
		.num_subbuf = s->num_subbuf,
	};
	return o;
}

struct flight_output *flight_output_get(const struct flight *f)
{
	atomic_fetch_add(&f->output->refs, 1);
	return &f->output->o;
}

struct flight_output *flight_output_ref(struct flight_output *o)
{
	struct output_ref *ref;

	if (!o)
		return NULL;
	ref = (struct output_ref *)((char *)o - offsetof(struct output_ref, o));
	atomic_fetch_add(&ref->refs, 1);
	return o;
}

void flight_output_put(struct flight_output *o)
{
	struct output_ref *ref;

	if (!o)
		return;
	ref = (struct output_ref *)((char *)o - offsetof(struct output_ref, o));
	if (atomic_fetch_sub(&ref->refs, 1) != 1)
		return;
	free(ref->local_dir);
	free(ref->relayd_url);
	free(ref);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *flight_strerror(int err)
{
	if (err == FLIGHT_ERR_ABANDONED)
		return "abandoned at the stop: lttng-sessiond did not answer";
	if (err == FLIGHT_ERR_NO_SESSION)
		return "no LTTng session: it is being created, or could not be (see the log)";
	if (err == FLIGHT_ERR_SESSIOND_BUSY)
		return "not tried: lttng-sessiond has not answered the session's check (latencyctl "
		       "status says since when)";
	if (err == FLIGHT_ERR_NO_ID)
		return "not recorded: every snapshot id (1 to 2^53-1) has been handed out (see the "
		       "catalog's warning at start)";
	return lttng_strerror(err < 0 ? err : -err);
}

const char *flight_record_why(const struct flight_record *rec)
{
	return rec->relayd_why[0] ? rec->relayd_why : flight_strerror(rec->relayd_error);
}

const char *flight_session_name(const struct flight *f)
{
	return f->session;
}

static int output_new(uint64_t max_size, const char *local_dir, const char *url,
		      struct lttng_snapshot_output **ret)
{
	struct lttng_snapshot_output *o = lttng_snapshot_output_create();
	int r;

	if (!o)
		return -LTTNG_ERR_NOMEM;
	r = url ? lttng_snapshot_output_set_network_url(url, o)
		: lttng_snapshot_output_set_local_path(local_dir, o);
	if (r == 0 && max_size)
		r = lttng_snapshot_output_set_size(max_size, o);
	if (r < 0) {
		lttng_snapshot_output_destroy(o);
		return r == -1 ? -LTTNG_ERR_INVALID : r;
	}
	*ret = o;
	return 0;
}

/* Tracepoint NAME, every log level, into CHANNEL. */
static int enable_tracepoint(struct lttng_handle *h, const char *name, const char *channel)
{
	struct lttng_event *ev = lttng_event_create();
	int r;

	if (!ev)
		return -LTTNG_ERR_NOMEM;
	ev->type = LTTNG_EVENT_TRACEPOINT;
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	ev->loglevel = -1;
	strncpy(ev->name, name, sizeof(ev->name) - 1);
	r = lttng_enable_event_with_exclusions(h, ev, channel, NULL, 0, NULL);
	lttng_event_destroy(ev);
	return r;
}

static int enable_events(struct lttng_handle *h, const struct flight_settings *s,
			 const char *channel)
{
	struct lttng_event *ev;
	int r = 0;

	for (const char *const *name = s->events; name && *name && r >= 0; name++)
		r = enable_tracepoint(h, *name, channel);
	if (r >= 0 && s->syscalls && s->domain == FLIGHT_DOMAIN_KERNEL) {
		ev = lttng_event_create();
		if (!ev)
			return -LTTNG_ERR_NOMEM;
		ev->type = LTTNG_EVENT_SYSCALL;
		strcpy(ev->name, "*");
		r = lttng_enable_event_with_exclusions(h, ev, channel, NULL, 0, NULL);
		lttng_event_destroy(ev);
	}
	return r < 0 ? r : 0;
}

int flight_kernel_events(char ***ret)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_KERNEL};
	struct lttng_event *events = NULL;
	struct lttng_handle *h = lttng_create_handle(NULL, &dom);
	char **v = NULL;
	int n, r = 0;

	if (!h)
		return -LTTNG_ERR_NOMEM;
	n = lttng_list_tracepoints(h, &events);
	lttng_destroy_handle(h);
	if (n < 0)
		return n;
	v = calloc((size_t)n + 1, sizeof(*v));
	for (int i = 0; v && i < n && r == 0; i++) {
		events[i].name[sizeof(events[i].name) - 1] = 0;
		v[i] = strdup(events[i].name);
		if (!v[i])
			r = -LTTNG_ERR_NOMEM;
	}
	free(events);
	if (!v || r < 0) {
		for (int i = 0; v && i < n; i++)
			free(v[i]);
		free(v);
		return -LTTNG_ERR_NOMEM;
	}
	*ret = v;
	return 0;
}

/*
 * The block devices' names, in every snapshot: latencyd writes them once, as the session
 * starts (the module's latency_tracker_device_name; LTTng's own statedump event where the
 * kernel lets it find the devices), and in the flight channel they would soon be
 * overwritten. A channel of their own, which nothing else writes to, keeps them, so that a
 * snapshot read anywhere (a peer's, on the collector) names its host's disks.
 */
static const char *const name_events[] = {"latency_tracker_device_name",
					  "lttng_statedump_block_device"};
#define NAMES_SUBBUF (16 * 1024)

static int enable_names(struct lttng_handle *h, struct lttng_domain *dom)
{
	struct lttng_channel *chan = lttng_channel_create(dom);
	int r;

	if (!chan)
		return -LTTNG_ERR_NOMEM;
	strcpy(chan->name, HISTORY_NAMES_CHANNEL);
	chan->attr.overwrite = 1;
	chan->attr.subbuf_size = NAMES_SUBBUF;
	chan->attr.num_subbuf = 2;
	chan->attr.output = LTTNG_EVENT_MMAP;
	r = lttng_enable_channel(h, chan);
	lttng_channel_destroy(chan);
	for (size_t i = 0; r >= 0 && i < sizeof(name_events) / sizeof(name_events[0]); i++)
		r = enable_tracepoint(h, name_events[i], HISTORY_NAMES_CHANNEL);
	return r < 0 ? r : 0;
}

/*
 * Someone else's record of the session (`lttng snapshot record`, a trigger) lands there too,
 * as OUTPUT_NAME-DATE-N, apart from latencyd's own snapshot names.
 */
#define OUTPUT_NAME "lttng"

/* Refused, records still work: each then sends its output's URLs for sessiond to build. */
static void add_session_output(struct flight *f)
{
	struct lttng_snapshot_output *primary = f->relayd ? f->relayd : f->local;
	struct lttng_snapshot_output *named = lttng_snapshot_output_create();
	int r = named ? lttng_snapshot_output_set_name(OUTPUT_NAME, primary) : -LTTNG_ERR_NOMEM;

	if (r >= 0)
		r = lttng_snapshot_add_output(f->session, primary);
	if (r >= 0) {
		f->named = named;
		return;
	}
	lttng_snapshot_output_destroy(named);
	log_warnx("session %s: cannot add its snapshot output (%s): each record sends the "
		  "output's URL instead, which sessiond takes longer to start",
		  f->session, lttng_strerror(r));
}

static int setup_session(const struct flight_settings *s)
{
	struct lttng_session_descriptor *desc;
	struct lttng_domain dom;
	struct lttng_handle *h = NULL;
	struct lttng_channel *chan = NULL;
	enum lttng_error_code ec;
	int r;

	desc = lttng_session_descriptor_snapshot_create(s->session);
	if (!desc)
		return -LTTNG_ERR_NOMEM;
	ec = lttng_create_session_ext(desc);
	lttng_session_descriptor_destroy(desc);
	if (ec != LTTNG_OK)
		return -(int)ec;

	memset(&dom, 0, sizeof(dom));
	dom.type = s->domain == FLIGHT_DOMAIN_KERNEL ? LTTNG_DOMAIN_KERNEL : LTTNG_DOMAIN_UST;
	dom.buf_type =
		s->domain == FLIGHT_DOMAIN_KERNEL ? LTTNG_BUFFER_GLOBAL : LTTNG_BUFFER_PER_UID;
	h = lttng_create_handle(s->session, &dom);
	chan = lttng_channel_create(&dom);
	if (!h || !chan) {
		r = -LTTNG_ERR_NOMEM;
		goto out;
	}
	strcpy(chan->name, "flight");
	chan->attr.overwrite = 1;
	chan->attr.subbuf_size = s->subbuf_size;
	chan->attr.num_subbuf = s->num_subbuf;
	chan->attr.output = LTTNG_EVENT_MMAP;
	r = lttng_enable_channel(h, chan);
	if (r < 0)
		goto out;
	r = enable_events(h, s, chan->name);
	if (r >= 0 && s->domain == FLIGHT_DOMAIN_KERNEL)
		r = enable_names(h, &dom);
	if (r < 0)
		goto out;
	r = lttng_start_tracing(s->session);
out:
	lttng_channel_destroy(chan);
	lttng_destroy_handle(h);
	return r < 0 ? r : 0;
}

/*
 * relayd writes a session's snapshots under HOSTNAME/SESSION-DATE-TIME/ in its output
 * directory, DATE-TIME being when the session was created, in sessiond's local time.
 */
static void find_relayd_dir(struct flight *f)
{
	struct lttng_session *sessions = NULL;
	char host[HOST_NAME_MAX + 1], when[32];
	uint64_t created = 0;
	struct tm tm;
	time_t t;
	int n;

	n = lttng_list_sessions(&sessions);
	for (int i = 0; i < n; i++)
		if (strcmp(sessions[i].name, f->session) == 0 &&
		    lttng_session_get_creation_time(&sessions[i], &created) != LTTNG_OK)
			created = 0;
	free(sessions);
	t = (time_t)created;
	if (!created || gethostname(host, sizeof(host)) < 0 || !localtime_r(&t, &tm) ||
	    !strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm))
		return;
	host[HOST_NAME_MAX] = 0;
	snprintf(f->relayd_dir, sizeof(f->relayd_dir), "%s/%s-%s", host, f->session, when);
}

const char *flight_relayd_dir(const struct flight *f)
{
	return f->relayd_dir[0] ? f->relayd_dir : NULL;
}

bool flight_replaced(const struct flight *f)
{
	return f->replaced;
}

int flight_create(const struct flight_settings *s, struct flight **ret)
{
	struct flight *f;
	int r;

	if (!s->session || !*s->session || !s->local_dir || s->local_dir[0] != '/')
		return -LTTNG_ERR_INVALID;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -LTTNG_ERR_NOMEM;
	f->fallback_local = s->fallback_local;
	f->max_size = s->max_size;
	f->session = strdup(s->session);
	f->output = output_ref_new(s);
	if (!f->session || !f->output) {
		r = -LTTNG_ERR_NOMEM;
		goto fail;
	}
	r = output_new(s->max_size, s->local_dir, NULL, &f->local);
	if (r == 0 && s->relayd_url)
		r = output_new(s->max_size, NULL, s->relayd_url, &f->relayd);
	if (r < 0)
		goto fail;

	/* A session of ours left by a crashed instance holds stale settings: replace it. */
	r = lttng_destroy_session(s->session);
	if (r < 0 && r != -LTTNG_ERR_SESS_NOT_FOUND && r != -LTTNG_ERR_NO_SESSION)
		goto fail;
	f->replaced = r == 0;
	r = setup_session(s);
	if (r < 0) {
		lttng_destroy_session(s->session);
		goto fail;
	}
	add_session_output(f);
	if (f->relayd) {
		find_relayd_dir(f);
		/* Resolved once: a DNS wait has no place on the way from an alert to its record. */
		f->relayd_timeout =
			s->relayd_timeout_ns ? s->relayd_timeout_ns : FLIGHT_RELAYD_TIMEOUT_NS;
		f->probe = relayd_addr_resolve(s->relayd_url, &f->relayd_addr, f->unprobed,
					       sizeof(f->unprobed)) == 0;
	}
	*ret = f;
	return 0;
fail:
	/* Nothing of ours is left in sessiond: keep flight_destroy() from touching it. */
	free(f->session);
	f->session = NULL;
	flight_destroy(f);
	return r;
}

void flight_set_relayd_timeout(struct flight *f, uint64_t ns)
{
	f->relayd_timeout = ns ? ns : FLIGHT_RELAYD_TIMEOUT_NS;
}

const char *flight_relayd_unprobed(const struct flight *f)
{
	return f->relayd && !f->probe ? f->unprobed : NULL;
}

bool flight_session_gone(int err)
{
	return err == -LTTNG_ERR_SESS_NOT_FOUND || err == FLIGHT_ERR_NO_SESSION ||
	       err == -LTTNG_ERR_NO_SESSIOND || err == -LTTNG_ERR_NO_SESSION ||
	       err == -LTTNG_ERR_FATAL;
}

static void relayd_failed(struct flight *f, struct flight_record *rec)
{
	uint64_t wait = RETRY_MIN_NS, now = now_ns();

	for (unsigned i = 0; i < f->relayd_failures && wait < RETRY_MAX_NS; i++)
		wait *= 2;
	if (wait > RETRY_MAX_NS)
		wait = RETRY_MAX_NS;
	f->relayd_failures++;
	f->relayd_failed_at = now;
	f->relayd_retry = now + wait;
	snprintf(f->relayd_why, sizeof(f->relayd_why), "%s", rec->relayd_why);
	rec->relayd_down = true;
	rec->retry_ns = f->relayd_retry;
}

/*
 * One record to relayd: not at all while it is known to fail, else after it answered the
 * probe. lttng-sessiond serves its clients one at a time, and a record to a relayd that
 * does not answer blocks it (and with it any other record, a local one too) until its own
 * network timeout, LTTNG_NETWORK_SOCKET_TIMEOUT, if it has one: sessiond must not be asked
 * to talk to a relayd that was silent a moment ago. The probe leaves one window, a relayd
 * that stops during the record: that one only sessiond's timeout bounds.
 */
static int record_relayd(struct flight *f, const char *name, struct flight_record *rec)
{
	struct lttng_snapshot_output *out;
	uint64_t now = now_ns(), held;
	int r;

	if (now < f->relayd_retry) {
		rec->relayd_skipped = true;
		snprintf(rec->relayd_why, sizeof(rec->relayd_why),
			 "not tried: it failed %.1fs ago (%.200s), next try in %.1fs",
			 (double)(now - f->relayd_failed_at) / 1e9, f->relayd_why,
			 (double)(f->relayd_retry - now) / 1e9);
		return -LTTNG_ERR_RELAYD_CONNECT_FAIL;
	}
	if (f->probe && relayd_probe(&f->relayd_addr, f->relayd_timeout, rec->relayd_why,
				     sizeof(rec->relayd_why)) < 0) {
		relayd_failed(f, rec);
		return -LTTNG_ERR_RELAYD_CONNECT_FAIL;
	}
	out = f->named ? f->named : f->relayd;
	if (lttng_snapshot_output_set_name(name, out) < 0)
		return -LTTNG_ERR_INVALID;
	rec->start_ns = now_ns();
	r = lttng_snapshot_record(f->session, out, 1);
	held = now_ns();
	rec->duration_ns = held - rec->start_ns;
	held -= now; /* the probe's wait too */
	if (r < 0 && !flight_session_gone(r)) {
		snprintf(rec->relayd_why, sizeof(rec->relayd_why),
			 "recording to lttng-relayd at %.200s failed: %s",
			 f->probe ? f->relayd_addr.where : "its URL", lttng_strerror(r));
		relayd_failed(f, rec);
	} else if (r >= 0 && f->fallback_local && held > f->relayd_timeout) {
		/*
		 * It worked, slowly: lttng-sessiond serves nothing else meanwhile, so the next
		 * alert's record would wait as long. Slow counts as failed for the records that
		 * follow (they go to the local directory until the retry), never for this one.
		 */
		snprintf(rec->relayd_why, sizeof(rec->relayd_why),
			 "the record to lttng-relayd at %.200s took %.2fs with its probe, over "
			 "output.relayd_timeout (%.2fs)",
			 f->probe ? f->relayd_addr.where : "its URL", (double)held / 1e9,
			 (double)f->relayd_timeout / 1e9);
		rec->relayd_slow = true;
		relayd_failed(f, rec);
	} else if (r >= 0) {
		rec->relayd_back = f->relayd_failures > 0;
		f->relayd_failures = 0;
	}
	return r;
}

int flight_record(struct flight *f, const char *name, struct flight_record *rec)
{
	struct lttng_snapshot_output *out = f->local;
	uint64_t t0;
	int r;

	memset(rec, 0, sizeof(*rec));
	if (f->relayd) {
		rec->start_ns = now_ns();
		r = record_relayd(f, name, rec);
		if (r >= 0) {
			rec->to_relayd = true;
			snprintf(rec->relayd_dir, sizeof(rec->relayd_dir), "%s", f->relayd_dir);
			return 0;
		}
		rec->relayd_error = r;
		if (!f->fallback_local)
			return r;
		rec->fell_back = true;
	}
	if (!f->relayd && f->named)
		out = f->named;
	if (lttng_snapshot_output_set_name(name, out) < 0) {
		rec->start_ns = now_ns();
		return -LTTNG_ERR_INVALID;
	}
	/* The history is taken now: what detect_to_record measures. */
	t0 = now_ns();
	rec->start_ns = t0;
	r = lttng_snapshot_record(f->session, out, 1);
	rec->duration_ns = now_ns() - t0;
	return r < 0 ? r : 0;
}

int flight_record_to(struct flight *f, const char *dir, const char *name, uint64_t max_size,
		     struct flight_record *rec)
{
	struct lttng_snapshot_output *out = NULL;
	uint64_t t0;
	int r;

	memset(rec, 0, sizeof(*rec));
	if (!max_size || (f->max_size && f->max_size < max_size))
		max_size = f->max_size;
	r = output_new(max_size, dir, NULL, &out);
	if (r == 0 && lttng_snapshot_output_set_name(name, out) < 0)
		r = -LTTNG_ERR_INVALID;
	if (r == 0) {
		t0 = now_ns();
		rec->start_ns = t0;
		r = lttng_snapshot_record(f->session, out, 1);
		rec->duration_ns = now_ns() - t0;
	}
	lttng_snapshot_output_destroy(out);
	return r < 0 ? r : 0;
}

int flight_exists(struct flight *f)
{
	struct lttng_session *sessions = NULL;
	int n, found = 0;

	n = lttng_list_sessions(&sessions);
	if (n < 0)
		return n == -LTTNG_ERR_NO_SESSIOND ? 0 : n;
	for (int i = 0; i < n; i++)
		found |= strcmp(sessions[i].name, f->session) == 0;
	free(sessions);
	return found;
}

void flight_destroy(struct flight *f)
{
	if (!f)
		return;
	if (f->session)
		lttng_destroy_session(f->session);
	lttng_snapshot_output_destroy(f->local);
	lttng_snapshot_output_destroy(f->relayd);
	lttng_snapshot_output_destroy(f->named);
	if (f->output)
		flight_output_put(&f->output->o);
	free(f->session);
	free(f);
}
