/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Connections turned away at accept time, each with one error and never a client slot.
 *
 * A client that may run no command at all (neither root, latencyd's uid, nor a member of
 * either group: see "Who may connect" in control.c) is refused before anything it sends is
 * read: it gets one not-authorized error naming the groups, then latencyd shuts its side
 * and closes the connection as soon as the caller has read it (its EOF), or after
 * REFUSED_LINGER_USEC. Refused connections have their own small budget (REFUSED_MAX),
 * beyond which they are closed at once, so that clients_max keeps protecting latencyd and
 * its members.
 *
 * A member with no slot for it (slots.c) gets a "busy" error the same way, lingering within
 * the same budget; one turned away because latencyd is short of file descriptors is closed
 * at once instead, for its descriptor is what latencyd lacks.
 *
 * Both come in floods (a client retrying in a loop, a pool of them, any local user
 * connecting at will when groups are configured): the first is logged, then one line at
 * the end of each interval says how many more there were, until an interval without any
 * (throttle.c): per uid for the refused, in one count for the busy. Status counts every
 * one (control.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "control.h"
#include "log.h"

#define USEC_PER_SEC	    1000000ULL
/* Refused connections waiting for their caller to read the error (see above). */
#define REFUSED_MAX	    16
#define REFUSED_LINGER_USEC (1 * USEC_PER_SEC)
/* Refusals after a logged one: one line for all of them per interval (see above). */
#define REFUSED_LOG_USEC    (10 * USEC_PER_SEC)
#define BUSY_LOG_USEC	    (10 * USEC_PER_SEC)

/* A connection refused at accept time: its error is sent, our side is shut. */
struct refused {
	struct refused_set *set;
	struct refused *prev, *next;
	int fd;
	sd_event_source *io, *timer;
};

/* ERR as one frame, sent without waiting; -errno when the send failed. */
static int send_error_frame(int fd, const struct proto_error *err)
{
	struct proto_buf out = {0};
	struct json_object *msg = NULL;
	int r = 0;

	if (proto_reply_error_new(PROTO_ID_NONE, err, &msg) >= 0 &&
	    proto_buf_add_frame(&out, msg, PROTO_FRAME_MAX) >= 0 &&
	    send(fd, proto_buf_head(&out), proto_buf_pending(&out), MSG_DONTWAIT | MSG_NOSIGNAL) <
		    0)
		r = -errno;
	json_object_put(msg);
	proto_buf_done(&out);
	return r;
}

static void refused_free(struct refused *rf)
{
	struct refused_set *set = rf->set;

	if (rf->prev)
		rf->prev->next = rf->next;
	else
		set->head = rf->next;
	if (rf->next)
		rf->next->prev = rf->prev;
	set->n--;
	sd_event_source_disable_unref(rf->io);
	sd_event_source_disable_unref(rf->timer);
	close(rf->fd);
	free(rf);
}

/* Whatever a refused caller still sends is dropped unread; its EOF ends the connection. */
static int on_refused_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct refused *rf = userdata;
	char buf[4096];
	ssize_t n;

	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return 0;
	refused_free(rf);
	return 0;
}

static int on_refused_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	refused_free(userdata);
	return 0;
}

/*
 * Shutting only our side first lets a client whose hello is not sent yet still send it and
 * read the error (a close would make its send fail with EPIPE, and it would never see why).
 */
static void linger(struct refused_set *set, int fd, unsigned id, const struct proto_error *err,
		   uint64_t linger_max_usec)
{
	struct refused *rf = NULL;
	uint64_t usec;
	int r;

	r = send_error_frame(fd, err);
	if (r < 0)
		log_debug("client %u: refusal: %s", id, strerror(-r));

	if (set->n >= REFUSED_MAX || shutdown(fd, SHUT_WR) < 0)
		goto close;
	rf = calloc(1, sizeof(*rf));
	if (!rf)
		goto close;
	rf->set = set;
	rf->fd = fd;
	usec = REFUSED_LINGER_USEC;
	if (linger_max_usec < usec)
		usec = linger_max_usec;
	r = sd_event_add_io(set->event, &rf->io, fd, EPOLLIN, on_refused_io, rf);
	if (r >= 0)
		r = sd_event_add_time_relative(set->event, &rf->timer, CLOCK_MONOTONIC, usec, 0,
					       on_refused_timeout, rf);
	if (r < 0) {
		sd_event_source_disable_unref(rf->io);
		free(rf);
		goto close;
	}
	sd_event_source_set_description(rf->io, "control-refused");
	sd_event_source_set_description(rf->timer, "control-refused-linger");
	rf->next = set->head;
	if (set->head)
		set->head->prev = rf;
	set->head = rf;
	set->n++;
	return;

close:
	close(fd);
}

/* The accept-time refusals of uid KEY not logged one by one, in one line. */
static void say_refusals(unsigned key, uint64_t count, uint64_t interval_usec, const char *last)
{
	throttle_say_refused("connection(s)", key, count, interval_usec, last);
}

/* The busy refusals not logged one by one since the last line, in one line. */
static void say_busy(unsigned key, uint64_t count, uint64_t interval_usec, const char *last)
{
	log_warnx("%" PRIu64 " more client(s) turned away busy within %llu s, not logged one by "
		  "one (the last: %s)",
		  count, (unsigned long long)(interval_usec / USEC_PER_SEC), last);
}

void refused_init(struct refused_set *set, sd_event *event)
{
	*set = (struct refused_set){.event = event};
	throttle_init(&set->refusals, event, "control-refused-log", REFUSED_LOG_USEC, say_refusals);
	throttle_init(&set->busy, event, "control-busy-log", BUSY_LOG_USEC, say_busy);
}

void refused_add(struct refused_set *set, int fd, const struct control_caller *caller,
		 const struct proto_error *err, uint64_t linger_max_usec)
{
	char uid_field[64];

	if (throttle_now(&set->refusals, caller->uid, err->message)) {
		snprintf(uid_field, sizeof(uid_field), "LATENCYD_PEER_UID=%u",
			 (unsigned)caller->uid);
		log_fields(LOG_NOTICE, (const char *const[]){uid_field, NULL},
			   "client %u (pid %d): refused: %s", caller->id, (int)caller->pid,
			   err->message);
	}
	linger(set, fd, caller->id, err, linger_max_usec);
}

/* Busy refusals are one bucket: one turned away for want of descriptors has no uid yet. */
void refused_busy(struct refused_set *set, int fd, unsigned id, const struct proto_error *err,
		  bool keep, uint64_t linger_max_usec)
{
	int r;

	if (throttle_now(&set->busy, 0, err->message))
		log_warnx("client %u: busy: %s", id, err->message);
	if (keep) {
		linger(set, fd, id, err, linger_max_usec);
		return;
	}
	r = send_error_frame(fd, err);
	if (r < 0)
		log_debug("client %u: busy reply: %s", id, strerror(-r));
	close(fd);
}

void refused_free_all(struct refused_set *set)
{
	while (set->head)
		refused_free(set->head);
	throttle_done(&set->refusals);
	throttle_done(&set->busy);
}
