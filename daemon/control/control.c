/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket: it frames, authorizes (dispatch.c) and dispatches, nothing else.
 *
 * Listening: one socket passed by systemd, or one bound at control.socket (sock.c).
 *
 * Who may connect. The members of two groups, control.admin_group and control.read_group,
 * must reach the socket, and a socket file has one group: owned by either, it leaves the
 * other's members out (issue #17, where admin_group members could not connect); a third
 * group holding both would be one more thing for the admin to keep in step. Two sockets
 * would split one protocol and one client in two. So the file is only the first, coarse
 * gate, and latencyd decides:
 *
 *   no group configured: mode 0660, latencyd's uid and group (root only, in practice);
 *   a group configured:  mode 0666, every local user can connect(), and each connection is
 *                        checked at accept time from its SO_PEERCRED credentials (caller.c).
 *
 * A client that may run no command at all (neither root, latencyd's uid, nor a member of
 * either group) is refused before anything it sends is read, with one error, and never
 * takes a client slot (refused.c). This is the D-Bus system bus model (a world-writable
 * socket, credentials checked by the daemon). Members of read_group only are refused admin
 * commands one by one (dispatch.c).
 *
 * The mode follows the configuration at start and at every reload, for a socket latencyd
 * bound and for the file of one systemd passed (socket activation): latencyd chmods it when
 * it may (it owns the file: root, as systemd makes it); if not, it logs what the socket
 * unit must set (SocketMode=).
 *
 * The group database. A caller whose groups decide (caller.c) and are not kept from a
 * recent lookup waits for them before anything it sends is read: it is in the waiting list,
 * not yet admitted, takes no client slot, and its handshake timer runs. Its groups are asked
 * of a thread of their own (caller_worker.c: with sssd or LDAP a lookup may take seconds or
 * hang, and the main loop must serve on), one lookup per user for all its connections
 * (caller_lookup.c). Answered, it is admitted as at accept; if the database does not answer
 * within handshake_timeout, it gets a busy error saying so and is closed (counted:
 * groups_timed_out). At most max_clients connections wait, a quarter of them of one user:
 * any local user may connect at will, and each holds a descriptor; beyond them, busy. Root
 * and latencyd's own user never wait; nor does a user whose groups, read less than
 * CALLER_CACHE_STALE_USEC ago, admit it (read again meanwhile).
 *
 * Clients: credentials at accept time; non-blocking reads into a bounded frame decoder; a
 * hello must come first, within a timeout; requests are answered in order, and those a
 * client sent before it closed are still run (on_client_io). A frame begun
 * must end within frame_timeout of the previous one's end: a client that sends half a
 * request and stalls is closed (an idle client, a watcher, may stay). A client whose
 * unread replies pass output_high is not read until it catches up; one whose unread output
 * passes output_max, or that reads none of it for output_timeout, is dropped: a slow client
 * costs latencyd bounded memory and a slot for a bounded time, and never holds back its
 * main loop nor the alerts (events are queued, never waited for). A client with no slot
 * left for it (slots.c: clients_max, a share per user, root's reserve, the recorder's file
 * descriptors) gets a "busy" error and goes (refused.c). A reload re-checks every connected
 * client against the new groups (and its user's groups anew): one that may no longer run
 * any command gets a not-authorized error and is closed, watchers included; one whose groups
 * are asked anew keeps those it had until the answer comes. Each of these outcomes is logged
 * and counted (control_stats, status "control").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <json-c/json.h>

#include "control.h"
#include "log.h"

#define USEC_PER_SEC	   1000000ULL
#define USEC_PER_MSEC	   1000ULL
#define ACCEPT_RETRY_SEC   1
#define SOCKET_MODE_ROOT   0660 /* no group configured */
#define SOCKET_MODE_GROUPS 0666 /* groups configured: latencyd checks each caller */

/* Commands refused: one line per uid an interval at most (dispatch.c). */
#define DENIED_LOG_USEC (10 * USEC_PER_SEC)

static const struct control_limits default_limits = {
	.clients_max = 64,
	.output_high = PROTO_FRAME_MAX,
	.output_max = 16 * PROTO_FRAME_MAX,
	.handshake_timeout_usec = 10 * USEC_PER_SEC,
	.frame_timeout_usec = 10 * USEC_PER_SEC,
	.output_timeout_usec = 30 * USEC_PER_SEC,
};

struct client {
	struct control *control;
	struct client *prev, *next;
	int fd;
	sd_event_source *io, *timer;
	sd_event_source *recheck_timer; /* after a reload: its groups asked, not answered yet */
	struct control_caller caller;
	struct proto_decoder dec;
	sd_event_source *frame_timer;  /* armed while a partial frame waits for its end */
	sd_event_source *output_timer; /* armed while output waits and none of it is read */
	struct proto_buf out;
	struct dispatch_state state;
	bool eof, closing, dead;
	bool gone;     /* hung up: what it sent is still read and run, the replies dropped */
	bool admitted; /* in clients; else in waiting, for its groups */
	bool asking;   /* its groups asked of the group database (caller_lookup.c) */
	uint64_t events_too_large; /* events dropped, too large for a frame (send_event) */
};

struct control {
	sd_event *event;
	struct dispatch_ctx dispatch;
	int fd;
	char *path;
	bool created;  /* we bound path and unlink it at exit */
	bool has_file; /* path is the socket's file (bound, or passed with a path) */
	struct sock_id id;
	sd_event_source *listen, *retry;
	sd_event_source *recheck; /* after a reload: the clients against the new groups */
	struct client *clients;
	unsigned n_clients, next_id;
	struct client *waiting; /* for their groups, not admitted yet (see above) */
	unsigned n_waiting;
	struct refused_set refused;
	struct throttle denied;	     /* commands refused to connected clients */
	struct caller_cache callers; /* their groups, for a few seconds */
	struct caller_lookups lookups;
	struct control_limits limits;
	struct control_stats stats;
	uint64_t accept_failures; /* in a row: one warning for all of them */
};

static size_t out_pending(const struct client *cl)
{
	return proto_buf_pending(&cl->out);
}

static int64_t message_id(struct json_object *msg)
{
	struct json_object *id;

	if (!json_object_object_get_ex(msg, PROTO_KEY_ID, &id) ||
	    !json_object_is_type(id, json_type_int))
		return PROTO_ID_NONE;
	return json_object_get_int64(id);
}

static void send_error(struct client *cl, int64_t id, const struct proto_error *err);

/* Queues msg (borrowed); -EMSGSIZE, nothing queued, for one too large for a frame. */
static int queue_message(struct client *cl, struct json_object *msg)
{
	int r;

	r = msg ? proto_buf_add_frame(&cl->out, msg, PROTO_FRAME_MAX) : -ENOMEM;
	if (r < 0 && r != -EMSGSIZE) {
		cl->dead = true;
	} else if (r == 0 && out_pending(cl) > cl->control->limits.output_max) {
		log_warnx("client %u: more than %zu bytes of unread output, dropping it",
			  cl->caller.id, cl->control->limits.output_max);
		cl->control->stats.dropped_slow++;
		cl->dead = true;
	}
	return r;
}

/* Queues msg (consumed). A reply too large for one frame becomes a too-large error. */
static void send_message(struct client *cl, struct json_object *msg)
{
	struct proto_error err;

	if (queue_message(cl, msg) == -EMSGSIZE) {
		log_warnx("client %u: a reply exceeds %d bytes", cl->caller.id, PROTO_FRAME_MAX);
		proto_error_set(&err, PROTO_ERR_TOO_LARGE, "reply exceeds %d bytes",
				PROTO_FRAME_MAX);
		send_error(cl, message_id(msg), &err);
	}
	json_object_put(msg);
}

/*
 * Queues event NAME's msg (consumed). One too large for a frame is dropped, never answered
 * with an error: an error with no id ends a watch (latencyctl takes it for a reload's), and
 * the next event may fit. Logged once per client, the later ones at debug level.
 */
static void send_event(struct client *cl, const char *name, struct json_object *msg)
{
	if (queue_message(cl, msg) == -EMSGSIZE) {
		cl->events_too_large++;
		cl->control->stats.events_too_large++;
		if (cl->events_too_large == 1)
			log_warnx("client %u: a %s event exceeds %d bytes, dropped (its later ones "
				  "logged at debug level)",
				  cl->caller.id, name, PROTO_FRAME_MAX);
		else
			log_debug("client %u: a %s event exceeds %d bytes, dropped (%" PRIu64
				  " so far)",
				  cl->caller.id, name, PROTO_FRAME_MAX, cl->events_too_large);
	}
	json_object_put(msg);
}

static void send_error(struct client *cl, int64_t id, const struct proto_error *err)
{
	struct json_object *msg = NULL;

	if (proto_reply_error_new(id, err, &msg) < 0)
		msg = NULL;
	send_message(cl, msg);
}

static void client_flush(struct client *cl)
{
	if (cl->gone) {
		proto_buf_consume(&cl->out, out_pending(cl));
		return;
	}
	while (!cl->dead && out_pending(cl) > 0) {
		ssize_t n = send(cl->fd, proto_buf_head(&cl->out), out_pending(cl),
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			log_debug("client %u: send: %s", cl->caller.id, strerror(errno));
			cl->dead = true;
			return;
		}
		proto_buf_consume(&cl->out, (size_t)n);
		/* It reads: its time to read the rest starts again (client_update re-arms). */
		cl->output_timer = sd_event_source_disable_unref(cl->output_timer);
	}
}

/* Handles buffered frames while output stays below output_high; true if frames may remain. */
static bool client_process(struct client *cl)
{
	struct proto_error err = {0};
	struct json_object *msg, *reply;
	int r;

	while (!cl->dead && !cl->closing) {
		if (out_pending(cl) >= cl->control->limits.output_high)
			return true;
		r = proto_decoder_next(&cl->dec, &msg);
		if (r == 0)
			break;
		/* A frame ended: the next one's time starts now (client_update re-arms). */
		cl->frame_timer = sd_event_source_disable_unref(cl->frame_timer);
		if (r < 0)
			cl->control->stats.bad_frames++;
		if (r == -EMSGSIZE) {
			log_info("client %u: %s, closing", cl->caller.id,
				 proto_decoder_error(&cl->dec));
			proto_error_set(&err, PROTO_ERR_TOO_LARGE, "%s",
					proto_decoder_error(&cl->dec));
			send_error(cl, PROTO_ID_NONE, &err);
			cl->closing = true;
			break;
		}
		if (r < 0) {
			log_debug("client %u: %s", cl->caller.id, proto_decoder_error(&cl->dec));
			proto_error_set(&err, PROTO_ERR_BAD_REQUEST, "%s",
					proto_decoder_error(&cl->dec));
			send_error(cl, PROTO_ID_NONE, &err);
			/* Garbage before the handshake: not a latencyd client. */
			cl->closing = !cl->state.hello_done;
			continue;
		}
		r = dispatch_message(&cl->control->dispatch, &cl->caller, &cl->state, msg, &reply);
		json_object_put(msg);
		if (r < 0) {
			cl->dead = true;
			break;
		}
		if (r > 0)
			cl->closing = true;
		if (cl->state.hello_done)
			cl->timer = sd_event_source_disable_unref(cl->timer);
		send_message(cl, reply);
	}
	if (cl->eof && !cl->closing && !cl->dead && proto_decoder_pending(&cl->dec) > 0) {
		/* Half a request and the end of input: it will never end, say so. */
		log_info("client %u: input ended in the middle of a frame (%zu bytes without "
			 "their end of line)",
			 cl->caller.id, proto_decoder_pending(&cl->dec));
		cl->control->stats.bad_frames++;
		proto_error_set(
			&err, PROTO_ERR_BAD_REQUEST,
			"end of input in the middle of a frame: %zu bytes without their end "
			"of line",
			proto_decoder_pending(&cl->dec));
		send_error(cl, PROTO_ID_NONE, &err);
	}
	if (cl->eof)
		cl->closing = true;
	return false;
}

static void client_read(struct client *cl)
{
	char *buf;
	size_t len;
	ssize_t n;

	if (proto_decoder_space(&cl->dec, &buf, &len) < 0) {
		cl->dead = true;
		return;
	}
	if (len == 0)
		return;
	n = recv(cl->fd, buf, len, MSG_DONTWAIT);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR) {
			log_debug("client %u: recv: %s", cl->caller.id, strerror(errno));
			cl->dead = true;
		}
		return;
	}
	if (n == 0) {
		cl->eof = true;
		return;
	}
	proto_decoder_commit(&cl->dec, (size_t)n);
}

static void client_link(struct client *cl)
{
	struct control *c = cl->control;
	struct client **head = cl->admitted ? &c->clients : &c->waiting;

	cl->prev = NULL;
	cl->next = *head;
	if (*head)
		(*head)->prev = cl;
	*head = cl;
	if (cl->admitted)
		c->n_clients++;
	else
		c->n_waiting++;
}

static void client_unlink(struct client *cl)
{
	struct control *c = cl->control;

	if (cl->prev)
		cl->prev->next = cl->next;
	else if (cl->admitted)
		c->clients = cl->next;
	else
		c->waiting = cl->next;
	if (cl->next)
		cl->next->prev = cl->prev;
	if (cl->admitted)
		c->n_clients--;
	else
		c->n_waiting--;
}

static void client_free(struct client *cl)
{
	if (!cl)
		return;
	log_debug("client %u: disconnected", cl->caller.id);
	client_unlink(cl);
	sd_event_source_disable_unref(cl->io);
	sd_event_source_disable_unref(cl->timer);
	sd_event_source_disable_unref(cl->recheck_timer);
	sd_event_source_disable_unref(cl->frame_timer);
	sd_event_source_disable_unref(cl->output_timer);
	if (cl->fd >= 0)
		close(cl->fd);
	proto_decoder_done(&cl->dec);
	caller_done(&cl->caller);
	proto_buf_done(&cl->out);
	free(cl);
}

static int on_frame_timeout(sd_event_source *s, uint64_t usec, void *userdata);
static int on_output_timeout(sd_event_source *s, uint64_t usec, void *userdata);

/*
 * While output waits for a client and it reads none of it, a timer runs; any byte read
 * restarts it (client_flush). A closing client is bounded the same way.
 */
static int output_timer_update(struct client *cl)
{
	struct control *c = cl->control;
	int r;

	if (out_pending(cl) == 0 || !c->limits.output_timeout_usec) {
		cl->output_timer = sd_event_source_disable_unref(cl->output_timer);
		return 0;
	}
	if (cl->output_timer)
		return 0;
	r = sd_event_add_time_relative(c->event, &cl->output_timer, CLOCK_MONOTONIC,
				       c->limits.output_timeout_usec, 0, on_output_timeout, cl);
	if (r < 0)
		return log_warn_errno(r, "client %u: cannot arm the output timer", cl->caller.id);
	sd_event_source_set_description(cl->output_timer, "control-client-output");
	return 0;
}

/*
 * While latencyd waits for the rest of a frame a client began, a timer runs; it stops when
 * the frame ends or latencyd stops reading (backpressure is latencyd's wait, not the
 * client's). Before the hello, the handshake timer covers the same case.
 */
static int frame_timer_update(struct client *cl, bool reading)
{
	struct control *c = cl->control;
	int r;

	if (!reading || !cl->state.hello_done || proto_decoder_pending(&cl->dec) == 0 ||
	    !c->limits.frame_timeout_usec) {
		cl->frame_timer = sd_event_source_disable_unref(cl->frame_timer);
		return 0;
	}
	if (cl->frame_timer)
		return 0;
	r = sd_event_add_time_relative(c->event, &cl->frame_timer, CLOCK_MONOTONIC,
				       c->limits.frame_timeout_usec, 0, on_frame_timeout, cl);
	if (r < 0)
		return log_warn_errno(r, "client %u: cannot arm the frame timer", cl->caller.id);
	sd_event_source_set_description(cl->frame_timer, "control-client-frame");
	return 0;
}

/* Called last by every client callback: frees a finished client or sets its poll events. */
static void client_update(struct client *cl)
{
	uint32_t events = 0;

	if (cl->dead || (cl->closing && out_pending(cl) == 0)) {
		client_free(cl);
		return;
	}
	if (!cl->closing && !cl->eof && out_pending(cl) < cl->control->limits.output_high)
		events |= EPOLLIN;
	if (out_pending(cl) > 0)
		events |= EPOLLOUT;
	if (sd_event_source_set_io_events(cl->io, events) < 0 ||
	    frame_timer_update(cl, events & EPOLLIN) < 0 || output_timer_update(cl) < 0)
		client_free(cl);
}

/*
 * A caller that sent its requests and closed at once (a script, latencyctl killed) is gone
 * both ways: nothing latencyd sends can arrive, but what it sent is still there to read, up
 * to its end, each read as large as a live client's. Its requests are run, as a half-close
 * would have them run; only the replies are dropped.
 */
static int on_client_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct client *cl = userdata;

	if (revents & (EPOLLHUP | EPOLLERR)) {
		cl->gone = true;
		client_flush(cl); /* drops what waits: reading may resume */
	}
	if ((revents & EPOLLIN) || (cl->gone && !cl->closing && !cl->eof))
		client_read(cl);
	else if (cl->gone)
		cl->dead = true; /* no longer read: closing, or at its end */
	while (client_process(cl)) {
		client_flush(cl);
		if (cl->dead || out_pending(cl) >= cl->control->limits.output_high)
			break;
	}
	client_flush(cl);
	client_update(cl);
	return 0;
}

/* USEC as "10 s", or "1500 ms" when not whole seconds. */
static const char *duration(uint64_t usec, char *buf, size_t size)
{
	if (usec % USEC_PER_SEC == 0)
		snprintf(buf, size, "%llu s", (unsigned long long)(usec / USEC_PER_SEC));
	else
		snprintf(buf, size, "%llu ms", (unsigned long long)(usec / USEC_PER_MSEC));
	return buf;
}

/* A client still waiting for its groups: busy, said and logged as a refusal (refused.c). */
static void groups_timed_out(struct client *cl)
{
	struct control *c = cl->control;
	struct proto_error err;
	char d[32];

	c->stats.groups_timed_out++;
	proto_error_set(&err, PROTO_ERR_BUSY,
			"the group database did not answer within %s: uid %u's groups decide "
			"its access (read_group, admin_group)",
			duration(c->limits.handshake_timeout_usec, d, sizeof(d)),
			(unsigned)cl->caller.uid);
	refused_add(&c->refused, cl->fd, &cl->caller, &err, c->limits.handshake_timeout_usec);
	cl->fd = -1;
	client_free(cl);
}

static int on_handshake_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct client *cl = userdata;
	struct proto_error err;

	if (!cl->admitted) {
		groups_timed_out(cl);
		return 0;
	}
	log_info("client %u: no hello within %llu ms, closing", cl->caller.id,
		 (unsigned long long)cl->control->limits.handshake_timeout_usec / USEC_PER_MSEC);
	cl->control->stats.timed_out++;
	proto_error_set(&err, PROTO_ERR_BAD_REQUEST, "handshake timeout");
	send_error(cl, PROTO_ID_NONE, &err);
	cl->closing = true;
	client_flush(cl);
	client_update(cl);
	return 0;
}

static int on_frame_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct client *cl = userdata;
	struct proto_error err;

	log_info("client %u: a frame left unfinished for %llu ms, closing", cl->caller.id,
		 (unsigned long long)cl->control->limits.frame_timeout_usec / USEC_PER_MSEC);
	cl->control->stats.timed_out++;
	proto_error_set(&err, PROTO_ERR_BAD_REQUEST,
			"frame timeout: %zu bytes without their end of line",
			proto_decoder_pending(&cl->dec));
	send_error(cl, PROTO_ID_NONE, &err);
	cl->closing = true;
	client_flush(cl);
	client_update(cl);
	return 0;
}

static int on_output_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct client *cl = userdata;

	log_warnx("client %u: read none of its %zu bytes of pending output for %llu ms, "
		  "dropping it",
		  cl->caller.id, out_pending(cl),
		  (unsigned long long)cl->control->limits.output_timeout_usec / USEC_PER_MSEC);
	cl->control->stats.dropped_slow++;
	cl->dead = true;
	client_update(cl);
	return 0;
}

static uint64_t now_usec(const struct control *c)
{
	uint64_t now = 0;

	sd_event_now(c->event, CLOCK_MONOTONIC, &now);
	return now;
}

static void slots_count(const struct control *c, uid_t uid, struct slots_use *use)
{
	uid_t self = geteuid();

	*use = (struct slots_use){.clients = c->n_clients};
	for (const struct client *cl = c->clients; cl; cl = cl->next) {
		if (cl->caller.uid == uid)
			use->of_uid++;
		if (cl->caller.uid != 0 && cl->caller.uid != self)
			use->unprivileged++;
	}
}

/* A caller with its groups: refused, busy, or a client whose requests are read. */
static void client_admit(struct client *cl)
{
	struct control *c = cl->control;
	struct slots_use use;
	struct proto_error err = {0};
	char desc[64];
	int r;

	/* Before the slot count: a caller that may do nothing never takes a member's slot. */
	if (caller_admit(&cl->caller, c->dispatch.cc, geteuid(), &err) < 0) {
		c->stats.refused++;
		refused_add(&c->refused, cl->fd, &cl->caller, &err,
			    c->limits.handshake_timeout_usec);
		cl->fd = -1;
		client_free(cl);
		return;
	}
	slots_count(c, cl->caller.uid, &use);
	if (slots_check(&use, cl->caller.uid, geteuid(), c->limits.clients_max, &err) < 0) {
		c->stats.busy++;
		refused_busy(&c->refused, cl->fd, cl->caller.id, &err, true,
			     c->limits.handshake_timeout_usec);
		cl->fd = -1;
		client_free(cl);
		return;
	}
	r = sd_event_add_io(c->event, &cl->io, cl->fd, EPOLLIN, on_client_io, cl);
	if (r < 0) {
		log_warn_errno(r, "client %u: cannot watch connection", cl->caller.id);
		client_free(cl);
		return;
	}
	snprintf(desc, sizeof(desc), "control-client-%u", cl->caller.id);
	sd_event_source_set_description(cl->io, desc);
	client_unlink(cl);
	cl->admitted = true;
	client_link(cl);
	log_debug("client %u: connected, pid %d uid %u gid %u", cl->caller.id, (int)cl->caller.pid,
		  (unsigned)cl->caller.uid, (unsigned)cl->caller.gid);
}

/*
 * A waiting client's credentials, and its groups from the cache, under the configuration in
 * force: admitted (or refused) at once when they suffice (0). 1: its groups must be asked
 * (client_ask); -errno (not logged).
 */
/* P's groups, kept but ageing, read again for the next ones; P does not wait for them. */
static void refresh(struct control *c, const struct control_caller *p)
{
	int r = caller_lookups_ask(&c->lookups, p->uid, p->gid);

	if (r < 0)
		log_warn_errno(r, "cannot read uid %u's groups again", (unsigned)p->uid);
}

static int client_begin(struct client *cl)
{
	struct control *c = cl->control;
	int r;

	caller_done(&cl->caller);
	r = caller_from_socket(cl->fd, cl->caller.id, &c->callers, now_usec(c), c->dispatch.cc,
			       geteuid(), &cl->caller);
	if (r == 2) {
		refresh(c, &cl->caller);
		/* Aged groups only admit: one they refuse waits for the answer on its way. */
		r = caller_admit(&cl->caller, c->dispatch.cc, geteuid(), &(struct proto_error){0}) <
		    0;
	}
	if (r == 0)
		client_admit(cl);
	return r;
}

/* Asks CL's groups, or joins its user's lookup in flight. -errno (not logged). */
static int client_ask(struct client *cl)
{
	int r = caller_lookups_ask(&cl->control->lookups, cl->caller.uid, cl->caller.gid);

	if (r >= 0)
		cl->asking = true;
	return r;
}

/* A waiting client whose groups cannot be had: logged, closed. */
static void client_groups_failed(struct client *cl, int error)
{
	log_warn_errno(error, "client %u: cannot read uid %u's groups", cl->caller.id,
		       (unsigned)cl->caller.uid);
	client_free(cl);
}

/* After a reload: a waiting client checked again, under the new configuration. */
static void client_begin_again(struct client *cl)
{
	int r = client_begin(cl);

	if (r > 0)
		r = client_ask(cl);
	if (r < 0)
		client_groups_failed(cl, r);
}

/* The connections of UID waiting for their groups, the new one included: one user, however
 * many times it connects, holds a share of the waiting places, as of the slots. */
static unsigned waiting_of(const struct control *c, uid_t uid)
{
	unsigned n = 0;

	for (const struct client *cl = c->waiting; cl; cl = cl->next)
		n += cl->caller.uid == uid;
	return n;
}

static void client_new(struct control *c, int fd)
{
	struct proto_error err = {0};
	struct client *cl;
	char desc[64];
	int r;

	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		log_warnx("client: out of memory");
		close(fd);
		return;
	}
	cl->control = c;
	cl->fd = fd;
	cl->caller.id = ++c->next_id;
	proto_decoder_init(&cl->dec, PROTO_FRAME_MAX);
	client_link(cl);
	/* From accept on: the wait for the group database counts. */
	r = sd_event_add_time_relative(c->event, &cl->timer, CLOCK_MONOTONIC,
				       c->limits.handshake_timeout_usec, 0, on_handshake_timeout,
				       cl);
	if (r < 0) {
		log_warn_errno(r, "client %u: cannot watch connection", cl->caller.id);
		client_free(cl);
		return;
	}
	snprintf(desc, sizeof(desc), "control-client-%u-handshake", cl->caller.id);
	sd_event_source_set_description(cl->timer, desc);

	r = client_begin(cl);
	if (r < 0) {
		log_warn_errno(r, "client %u: cannot get caller credentials", cl->caller.id);
		client_free(cl);
		return;
	}
	if (r == 0)
		return;
	if (c->n_waiting <= c->limits.clients_max &&
	    waiting_of(c, cl->caller.uid) <= slots_per_user(c->limits.clients_max)) {
		r = client_ask(cl);
		if (r < 0)
			client_groups_failed(cl, r);
		return;
	}
	c->stats.busy++;
	if (c->n_waiting > c->limits.clients_max)
		proto_error_set(&err, PROTO_ERR_BUSY,
				"too many connections waiting for the group database (%u, "
				"max_clients): it is slow to answer",
				c->limits.clients_max);
	else
		proto_error_set(&err, PROTO_ERR_BUSY,
				"too many connections of uid %u waiting for the group database "
				"(%u, a quarter of max_clients): it is slow to answer",
				(unsigned)cl->caller.uid, slots_per_user(c->limits.clients_max));
	refused_busy(&c->refused, cl->fd, cl->caller.id, &err, true,
		     c->limits.handshake_timeout_usec);
	cl->fd = -1;
	client_free(cl);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct control *c = userdata;

	c->retry = sd_event_source_disable_unref(c->retry);
	sd_event_source_set_enabled(c->listen, SD_EVENT_ON);
	return 0;
}

static int on_listen(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct control *c = userdata;
	struct proto_error err;
	int cfd, r;

	cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0) {
		if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
			return 0;
		c->stats.accept_failed++;
		/* One warning while it lasts: it comes back every ACCEPT_RETRY_SEC. */
		if (c->accept_failures++ == 0)
			log_warn("accept (retrying every %d s; connections wait meanwhile)",
				 ACCEPT_RETRY_SEC);
		/* Out of descriptors or memory: stop accepting for a while instead of spinning. */
		r = sd_event_add_time_relative(c->event, &c->retry, CLOCK_MONOTONIC,
					       ACCEPT_RETRY_SEC * USEC_PER_SEC, 0, on_retry, c);
		if (r >= 0) {
			sd_event_source_set_description(c->retry, "control-accept-retry");
			sd_event_source_set_enabled(c->listen, SD_EVENT_OFF);
		}
		return 0;
	}
	if (c->accept_failures) {
		log_info("accepting connections again, after %llu failed accepts",
			 (unsigned long long)c->accept_failures);
		c->accept_failures = 0;
	}
	c->stats.accepted++;
	/* Before anything else needs a descriptor (the caller's groups): see slots.c. */
	if (slots_fd_check(cfd, &err) < 0) {
		c->stats.busy++;
		refused_busy(&c->refused, cfd, ++c->next_id, &err, false, 0);
		return 0;
	}
	client_new(c, cfd);
	return 0;
}

/* The socket file's mode: see "Who may connect" above. */
static mode_t socket_mode(const struct conf_control *cc)
{
	if (cc->admin_gid != GID_INVALID || cc->read_gid != GID_INVALID)
		return SOCKET_MODE_GROUPS;
	return SOCKET_MODE_ROOT;
}

/* A socket systemd passed: its file gets the mode latencyd would have given it. */
static void passed_set_mode(const struct control *c, const struct conf_control *cc)
{
	if (sock_set_mode(c->path, socket_mode(cc)) < 0)
		log_warnx("control socket %s: latencyd cannot set its mode to %04o; the socket "
			  "unit must set SocketMode=%04o",
			  c->path, (unsigned)socket_mode(cc), (unsigned)socket_mode(cc));
}

static void on_groups(void *userdata, uid_t uid, gid_t gid, bool current, int error,
		      const gid_t *groups, int n);

/* With groups configured, the group database's thread is ready before the first caller. */
static void groups_prepare(struct control *c, const struct conf_control *cc)
{
	int r;

	if (cc->admin_gid == GID_INVALID && cc->read_gid == GID_INVALID)
		return;
	r = caller_lookups_start(&c->lookups);
	if (r < 0)
		log_warn_errno(r, "cannot start the group database's thread (its first lookup "
				  "will try again)");
}

/* The commands of uid KEY refused and not logged one by one, in one line. */
static void say_denied(unsigned key, uint64_t count, uint64_t interval_usec, const char *last)
{
	throttle_say_refused("request(s)", key, count, interval_usec, last);
}

int control_new(sd_event *event, const struct conf_control *cc,
		const struct control_commands *commands, struct manager *ctx, struct control **ret)
{
	struct control *c;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->event = event;
	refused_init(&c->refused, event);
	throttle_init(&c->denied, event, "control-denied-log", DENIED_LOG_USEC, say_denied);
	c->dispatch = (struct dispatch_ctx){
		.commands = commands, .m = ctx, .cc = cc, .refusals = &c->denied};
	caller_lookups_init(&c->lookups, event, &c->callers, default_limits.handshake_timeout_usec,
			    on_groups, c);
	c->fd = -1;
	c->limits = default_limits;
	c->limits.clients_max = (unsigned)cc->max_clients;
	groups_prepare(c, cc);
	*ret = c;
	return 0;
}

void control_free(struct control *c)
{
	if (!c)
		return;
	while (c->clients)
		client_free(c->clients);
	while (c->waiting)
		client_free(c->waiting);
	refused_free_all(&c->refused);
	throttle_done(&c->denied);
	caller_lookups_done(&c->lookups);
	caller_cache_clear(&c->callers);
	sd_event_source_disable_unref(c->listen);
	sd_event_source_disable_unref(c->retry);
	sd_event_source_disable_unref(c->recheck);
	if (c->fd >= 0)
		close(c->fd);
	if (c->created)
		sock_unlink_if_ours(c->path, &c->id);
	free(c->path);
	free(c);
}

int control_listen(struct control *c, const char *path)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof(sa);
	int r;

	r = sock_from_systemd(&c->fd);
	if (r < 0)
		return r;
	if (r > 0) {
		memset(&sa, 0, sizeof(sa));
		if (getsockname(c->fd, (struct sockaddr *)&sa, &len) == 0 && sa.sun_path[0]) {
			/* The socket unit decides where clients connect; an operator who
			 * moved control.socket alone would look for it in the wrong place. */
			if (strcmp(sa.sun_path, path) != 0)
				log_warnx("control.socket %s is not used: systemd passed %s "
					  "(ListenStream= of latencyd.socket says where)",
					  path, sa.sun_path);
			path = sa.sun_path;
			c->has_file = true;
		}
		log_info("control socket %s passed by systemd", path);
	} else {
		r = sock_bind(path, socket_mode(c->dispatch.cc), &c->fd, &c->id);
		if (r < 0)
			return r;
		c->created = c->has_file = true;
	}
	c->path = strdup(path);
	if (!c->path)
		return -ENOMEM;
	if (c->has_file && !c->created)
		passed_set_mode(c, c->dispatch.cc);
	r = sd_event_add_io(c->event, &c->listen, c->fd, EPOLLIN, on_listen, c);
	if (r < 0)
		return log_warn_errno(r, "cannot watch the control socket");
	sd_event_source_set_description(c->listen, "control-listen");
	return 0;
}

/* An admitted client, with the groups it has: closed if it may no longer run any command. */
static void recheck_decide(struct client *cl)
{
	struct control *c = cl->control;
	struct proto_error err = {0};
	char uid_field[64];

	if (caller_admit(&cl->caller, c->dispatch.cc, geteuid(), &err) >= 0)
		return;
	snprintf(uid_field, sizeof(uid_field), "LATENCYD_PEER_UID=%u", (unsigned)cl->caller.uid);
	log_fields(LOG_NOTICE, (const char *const[]){uid_field, NULL},
		   "client %u (pid %d): closed after the reload: %s", cl->caller.id,
		   (int)cl->caller.pid, err.message);
	c->stats.refused++;
	send_error(cl, PROTO_ID_NONE, &err);
	cl->closing = true;
	client_flush(cl);
	client_update(cl);
}

static void recheck_kept(const struct client *cl, int error)
{
	log_warn_errno(error, "client %u: cannot read its groups again; keeping those it had",
		       cl->caller.id);
}

/*
 * The group database silent past handshake_timeout after a reload: the client is checked
 * with the groups it had (a reload that takes a group's access away takes it then, whatever
 * the database does); its answer, if it comes later, is not waited for.
 */
static int on_recheck_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct client *cl = userdata;

	cl->recheck_timer = sd_event_source_disable_unref(cl->recheck_timer);
	cl->asking = false;
	log_warnx("client %u: the group database did not answer within %llu s after the "
		  "reload: checked with the groups it had",
		  cl->caller.id,
		  (unsigned long long)(cl->control->limits.handshake_timeout_usec / USEC_PER_SEC));
	recheck_decide(cl);
	return 0;
}

static void recheck_wait(struct client *cl)
{
	int r;

	cl->recheck_timer = sd_event_source_disable_unref(cl->recheck_timer);
	r = sd_event_add_time_relative(cl->control->event, &cl->recheck_timer, CLOCK_MONOTONIC,
				       cl->control->limits.handshake_timeout_usec, 0,
				       on_recheck_timeout, cl);
	if (r < 0)
		log_warn_errno(r, "client %u: cannot bound the wait for its groups", cl->caller.id);
	else
		sd_event_source_set_description(cl->recheck_timer, "control-client-recheck");
}

/*
 * An admitted client's groups read anew, and checked: at once when the cache has them (or
 * they cannot matter), else when the group database answers (on_groups), or with those it
 * had once it has been silent for handshake_timeout; it keeps them meanwhile.
 */
static void recheck_client(struct client *cl)
{
	struct control *c = cl->control;
	struct control_caller fresh;
	int r;

	r = caller_from_socket(cl->fd, cl->caller.id, &c->callers, now_usec(c), c->dispatch.cc,
			       geteuid(), &fresh);
	if (r == 2) {
		refresh(c, &fresh);
		r = caller_admit(&fresh, c->dispatch.cc, geteuid(), &(struct proto_error){0}) < 0;
	}
	if (r > 0) {
		caller_done(&fresh);
		r = client_ask(cl);
		if (r >= 0) {
			recheck_wait(cl);
			return;
		}
	}
	if (r < 0) {
		recheck_kept(cl, r);
		caller_done(&fresh);
	} else {
		caller_done(&cl->caller);
		cl->caller = fresh;
	}
	recheck_decide(cl);
}

/*
 * After a reload, out of the reload's own request (its reply goes first): each client's
 * groups are read anew and checked against the new configuration; one that may no longer
 * run any command is told so and closed. Those waiting for their groups are checked again
 * under the new configuration too.
 */
static int on_recheck(sd_event_source *s, void *userdata)
{
	struct control *c = userdata;
	struct client *cl, *next;

	c->recheck = sd_event_source_disable_unref(c->recheck);
	for (cl = c->clients; cl; cl = next) {
		next = cl->next;
		if (!cl->dead && !cl->closing)
			recheck_client(cl);
	}
	for (cl = c->waiting; cl; cl = next) {
		next = cl->next;
		client_begin_again(cl);
	}
	return 0;
}

static bool asking_for(const struct client *cl, uid_t uid, gid_t gid)
{
	return cl->asking && cl->caller.uid == uid && cl->caller.gid == gid;
}

/*
 * The group database answered for UID/GID (caller_lookup.c): the clients re-checked get
 * the groups, those waiting are admitted or refused. An answer from a lookup begun before a
 * reload may not be what the database says after it: they are checked again, asking anew.
 */
static void on_groups(void *userdata, uid_t uid, gid_t gid, bool current, int error,
		      const gid_t *groups, int n)
{
	struct control *c = userdata;
	struct client *cl, *next;
	int r;

	for (cl = c->clients; cl; cl = next) {
		next = cl->next;
		if (!asking_for(cl, uid, gid))
			continue;
		cl->asking = false;
		cl->recheck_timer = sd_event_source_disable_unref(cl->recheck_timer);
		if (cl->dead || cl->closing)
			continue;
		if (!current) {
			recheck_client(cl);
			continue;
		}
		r = error < 0 ? error : caller_set_groups(&cl->caller, groups, n);
		if (r < 0)
			recheck_kept(cl, r);
		recheck_decide(cl);
	}
	for (cl = c->waiting; cl; cl = next) {
		next = cl->next;
		if (!asking_for(cl, uid, gid))
			continue;
		cl->asking = false;
		if (!current) {
			client_begin_again(cl);
			continue;
		}
		r = error < 0 ? error : caller_set_groups(&cl->caller, groups, n);
		if (r < 0)
			client_groups_failed(cl, r);
		else
			client_admit(cl);
	}
}

/* After a reload: the socket's mode follows the new groups; a new path needs a restart. */
void control_reconfigure(struct control *c, const struct conf_control *cc)
{
	int r;

	c->dispatch.cc = cc;
	/* The groups may have changed with the configuration: the re-check reads them anew. */
	caller_lookups_reset(&c->lookups);
	groups_prepare(c, cc);
	if ((c->clients || c->waiting) && !c->recheck) {
		r = sd_event_add_defer(c->event, &c->recheck, on_recheck, c);
		if (r < 0)
			log_warn_errno(r, "cannot check the clients against the new groups");
		else
			sd_event_source_set_description(c->recheck, "control-recheck");
	}
	if (!c->path)
		return;
	if (strcmp(cc->socket, c->path) != 0)
		log_warnx("control.socket changed to %s: latencyd keeps %s until it restarts",
			  cc->socket, c->path);
	if (c->created)
		sock_set_mode(c->path, socket_mode(cc));
	else if (c->has_file)
		passed_set_mode(c, cc);
	c->limits.clients_max = (unsigned)cc->max_clients;
}

void control_set_limits(struct control *c, const struct control_limits *l)
{
	c->limits = *l;
	/* Its waiters have given up on a lookup by then: the next connection asks again. */
	c->lookups.stale_usec = l->handshake_timeout_usec;
}

const char *control_path(const struct control *c)
{
	return c->path;
}

unsigned control_clients(const struct control *c)
{
	return c->n_clients;
}

unsigned control_waiting(const struct control *c)
{
	return c->n_waiting;
}

unsigned control_clients_max(const struct control *c)
{
	return c->limits.clients_max;
}

const struct control_stats *control_stats(const struct control *c)
{
	return &c->stats;
}

/*
 * A watcher that does not read its events is dropped once output_max bytes wait for it
 * (queue_message): a slow client never holds back latencyd, nor makes it grow. An event
 * too large for a frame is dropped alone (send_event).
 */
void control_broadcast(struct control *c, const char *name, struct json_object *data)
{
	struct client *cl, *next;
	struct json_object *msg;

	for (cl = c ? c->clients : NULL; cl; cl = next) {
		next = cl->next;
		if (!cl->state.watching || cl->dead || cl->closing)
			continue;
		if (proto_event_new(name, json_object_get(data), &msg) < 0)
			msg = NULL;
		send_event(cl, name, msg);
		client_flush(cl);
		client_update(cl);
	}
}
