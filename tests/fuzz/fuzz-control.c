/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fuzz target: what latencyd does with a client's bytes. The input is split into reads as
 * a socket would deliver them, framed by the protocol's decoder, and each frame handed to
 * dispatch_message() of a real manager (control plane only, a fake sysfs and a scratch
 * saved-settings file under a temporary directory); each reply is encoded as control.c
 * does and parsed back as latencyctl does.
 *
 * The first byte picks the conditions: bit 0 skips the handshake, bit 1 makes the caller an
 * unprivileged user, bit 2 uses a small frame limit (the oversize path with short inputs),
 * bits 3-7 the size of the reads.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "latencyd.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct manager *m;
static char dir[] = "/tmp/fuzz-control-XXXXXX";

static void put(const char *sub, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void make_tracker(const char *name)
{
	static const char *const files[] = {"enabled",		"threshold_ns", "timeout_ns",
					    "filter_tgid",	"filter_tid",	"filter_comm",
					    "filter_cgroup_id", "max_keys"};
	char path[256];

	snprintf(path, sizeof(path), "mkdir -p %s/sys/kernel/latency_tracker/%s/stats", dir, name);
	if (system(path) != 0)
		abort();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "sys/kernel/latency_tracker/%s/%s", name, files[i]);
		put(path, "0\n");
	}
	snprintf(path, sizeof(path), "sys/kernel/latency_tracker/%s/stats/alerts", name);
	put(path, "3\n");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct conf_source src = {0};
	struct conf_diag diag = {0};
	struct conf *conf;
	char path[256], text[512];

	log_init("fuzz-control", LOG_CRIT); /* the daemon's warnings would drown the fuzzer's */
	unsetenv("NOTIFY_SOCKET");
	unsetenv("LISTEN_FDS");
	if (!mkdtemp(dir))
		abort();
	make_tracker("wakeup");
	make_tracker("offcpu");
	put("sys/kernel/latency_tracker/abi_version", "1.0\n");
	/* reload reads this again: never the machine's /etc/latencyd.conf nor its saved file. */
	snprintf(text, sizeof(text),
		 "control: { socket = \"%s/ctl.sock\"; save_file = \"%s/saved.conf\"; };\n"
		 "session: { enabled = false; };\n"
		 "log: { level = \"error\"; };\n", /* reload sets the level again */
		 dir, dir);
	put("latencyd.conf", text);
	snprintf(path, sizeof(path), "%s/latencyd.conf", dir);
	src.path = path;
	src.must_exist = true;
	if (conf_load(&src, &conf, &diag) < 0 || manager_new(&src, conf, &commands_table, &m) < 0)
		abort();
	conf_diag_clear(&diag);
	snprintf(path, sizeof(path), "%s/sys", dir);
	m->sysfs_root = strdup(path);
	return 0;
}

/* The reply as control.c sends it and latencyctl reads it. */
static void check_reply(struct json_object *reply)
{
	struct proto_buf out = {0};
	struct proto_decoder dec;
	struct proto_reply rep;
	struct proto_hello hello;
	struct proto_error err;
	struct json_object *back = NULL;
	int r;

	if (!reply)
		abort(); /* dispatch_message() returned >= 0 without a reply */
	r = proto_buf_add_frame(&out, reply, PROTO_FRAME_MAX);
	if (r == -EMSGSIZE)
		goto done;
	if (r < 0)
		abort();
	proto_decoder_init(&dec, PROTO_FRAME_MAX);
	if (proto_decoder_feed(&dec, proto_buf_head(&out), proto_buf_pending(&out)) !=
		    (ssize_t)proto_buf_pending(&out) ||
	    proto_decoder_next(&dec, &back) != 1)
		abort(); /* what latencyd encodes, its own decoder must read */
	if (proto_message_kind(back) == PROTO_MSG_HELLO) {
		if (proto_hello_parse(back, &hello, &err) < 0)
			abort();
	} else if (proto_reply_parse(back, &rep, &err) < 0) {
		abort(); /* every reply must be one latencyctl can parse */
	}
	json_object_put(back);
	proto_decoder_done(&dec);
done:
	proto_buf_done(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct control_caller caller = {.id = 1, .pid = 1, .gid = 0};
	struct dispatch_state st = {0};
	const struct dispatch_ctx ctx = {&commands_table, m, &m->conf->control};
	struct proto_decoder dec;
	struct json_object *msg, *reply;
	size_t chunk, pos = 1;
	uint8_t flags;
	int r;

	if (size < 1)
		return 0;
	flags = data[0];
	st.hello_done = flags & 1;
	caller.uid = flags & 2 ? 65534 : 0;
	caller.gid = flags & 2 ? 65534 : 0;
	chunk = (size_t)(flags >> 3) + 1;
	proto_decoder_init(&dec, flags & 4 ? 512 : PROTO_FRAME_MAX);
	while (pos < size) {
		ssize_t n = proto_decoder_feed(&dec, data + pos,
					       size - pos < chunk ? size - pos : chunk);

		if (n < 0)
			abort();
		pos += (size_t)n;
		while ((r = proto_decoder_next(&dec, &msg)) != 0) {
			if (r < 0)
				continue; /* the bad frame is gone; control.c answers and goes on */
			r = dispatch_message(&ctx, &caller, &st, msg, &reply);
			json_object_put(msg);
			if (r < 0)
				break;
			check_reply(reply);
			json_object_put(reply);
			if (r > 0)
				goto out; /* control.c closes the connection */
		}
	}
out:
	proto_decoder_done(&dec);
	return 0;
}
