/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a snapshot stream by stream, in one thread or several (latencyctl analyze
 * --threads): the stream files are dealt into shards of about the same size, each shard
 * read by its own graph on its own thread, each stream decoded into its own log
 * (streams.c), and the logs merged in the muxer's order (merge.c): the log comes out as
 * one muxed pass (reader.c) gives it, byte for byte, and faster even in one thread (no
 * muxer).
 *
 * The stream files of a trace are split between shards through directories of links (to
 * the metadata, the index and some of the stream files), which source.ctf.fs reads as the
 * trace itself, provided its streams keep their ids: a trace whose packet header has no
 * stream_instance_id (ctf.fs numbers its streams by their files then) stays whole, and
 * streams.c checks the other condition (packets with a beginning time). A stream file cut
 * between packets (deal.c) is read as pieces, each a file of its own in its shard's
 * directory, written by the shard's thread.
 *
 * Anything else goes back to the muxed pass (-EAGAIN), which says what is wrong: a damaged
 * trace (it salvages what it can, and a reading cut short keeps what came before the
 * break, in time order, which reading streams apart cannot tell), a time going back, a
 * clock the muxer would refuse, two streams alike, the history's counting (latencyd's).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "deal.h"
#include "lttng_packet.h"
#include "read.h"
#include "regular.h"
#include "salvage.h"
#include "streams.h"

/*
 * Below this many bytes of stream files (some 25k events), a second graph costs more than
 * it saves: each graph parses the trace's metadata again (some 20 ms for a kernel's).
 */
#define SPLIT_MIN_BYTES (512u << 10)

/* Whether the trace's streams have ids of their own (its packet header says). */
static bool splittable(const char *dir)
{
	char *path = an_asprintf("%s/metadata", dir), *text = NULL;
	FILE *f = path ? an_fopen_regular(path, NULL) : NULL;
	bool yes = false;
	long size;

	if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size)) &&
	    fread(text, 1, (size_t)size, f) == (size_t)size)
		yes = memmem(text, (size_t)size, "stream_instance_id", 18) != NULL;
	if (f)
		fclose(f);
	free(text);
	free(path);
	return yes;
}

static int push_unit(struct an_vec *units, size_t dir, const char *name, uint64_t bytes, bool lttng)
{
	struct an_unit *u = an_vec_push(units);

	if (!u)
		return -ENOMEM;
	*u = (struct an_unit){.dir = dir, .size = bytes, .bytes = bytes, .lttng = lttng};
	return name && !(u->name = strdup(name)) ? -ENOMEM : 0;
}

/* The stream files of trace dir, as source.ctf.fs takes them: regular, not empty. */
static int list_units(size_t i, const char *dir, struct an_vec *units)
{
	bool split = splittable(dir), lttng = split && an_trace_is_lttng(dir);
	DIR *d = opendir(dir);
	struct dirent *de;
	uint64_t whole = 0;
	size_t files = 0;
	int r = 0;

	if (!d)
		return -EAGAIN;
	while (!r && (de = readdir(d))) {
		char *path;
		struct stat st;

		if (de->d_name[0] == '.' || strcmp(de->d_name, "metadata") == 0)
			continue;
		path = an_asprintf("%s/%s", dir, de->d_name);
		if (!path) {
			r = -ENOMEM;
		} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
			if (split)
				r = push_unit(units, i, de->d_name, (uint64_t)st.st_size, lttng);
			whole += (uint64_t)st.st_size;
			files++;
		}
		free(path);
	}
	closedir(d);
	/* A trace without stream files is read all the same: the muxed pass would read it. */
	if (!r && (!split || !files))
		r = push_unit(units, i, NULL, whole, false);
	return r;
}

static int push_str(struct an_vec *v, char *s)
{
	char **slot = s ? an_vec_push(v) : NULL;

	if (!slot) {
		free(s);
		return -ENOMEM;
	}
	*slot = s;
	return 0;
}

/* The links a shard reads a trace through: any failure sends the snapshot to the muxed pass. */
static int link_one(const char *tmp, const char *dir, const char *name)
{
	return an_link_into(tmp, dir, name) < 0 ? -EAGAIN : 0;
}

/* A piece of a stream file, written into the link directory tmp by the shard's thread. */
static int push_piece(struct an_shard *s, const char *tmp, const char *dir, const struct an_unit *u)
{
	struct an_piece *p = an_vec_push(&s->pieces);

	if (!p)
		return -ENOMEM;
	*p = (struct an_piece){
		.from = an_asprintf("%s/%s", dir, u->name),
		.to = an_asprintf("%s/%s", tmp, u->name),
		.off = u->off,
		.bytes = u->bytes,
		.input = s->inputs.n, /* tmp's, pushed last */
		.class_id = u->class_id,
		.id = u->id,
	};
	return p->from && p->to ? 0 : -ENOMEM;
}

/* The shard's pieces written, before its graph reads them; -EIO (a full disk) else. */
static int write_pieces(struct an_shard *s)
{
	for (size_t i = 0; i < s->pieces.n; i++) {
		const struct an_piece *p = AN_AT(&s->pieces, struct an_piece, i);

		if (an_copy_range(p->from, p->to, p->off, p->bytes) < 0)
			return -EIO;
	}
	return 0;
}

/* Input S, the shard's next, read for trace DI. */
static int push_input(struct an_shard *s, char *input, size_t di)
{
	uint32_t *t = an_vec_push(&s->traces);

	if (!t) {
		free(input);
		return -ENOMEM;
	}
	*t = (uint32_t)di;
	return push_str(&s->inputs, input);
}

/* Trace dir's part in shard s: the directory itself when it holds all of it, else links. */
static int shard_input(struct an_shard *s, size_t shard, const char *dir, size_t di,
		       const struct an_vec *units)
{
	const char *base = getenv("TMPDIR");
	size_t mine = 0, all = 0;
	struct stat st;
	char *tmp, *index;
	int r = 0;

	for (size_t i = 0; i < units->n; i++) {
		const struct an_unit *u = AN_AT(units, struct an_unit, i);

		all += u->dir == di;
		mine += u->dir == di && u->shard == shard;
	}
	if (!mine)
		return 0;
	if (mine == all)
		return push_input(s, an_strdup(dir), di);
	tmp = an_asprintf("%s/latency-streams.XXXXXX", base && *base ? base : "/tmp");
	if (!tmp || !mkdtemp(tmp)) {
		free(tmp);
		return -EAGAIN;
	}
	if (push_str(&s->links, tmp) < 0)
		return -ENOMEM;
	s->split = true;
	r = link_one(tmp, dir, "metadata");
	index = an_asprintf("%s/index", dir);
	if (!r && index && stat(index, &st) == 0 && S_ISDIR(st.st_mode))
		r = link_one(tmp, dir, "index");
	free(index);
	for (size_t i = 0; i < units->n && !r; i++) {
		const struct an_unit *u = AN_AT(units, struct an_unit, i);

		if (u->dir != di || u->shard != shard)
			continue;
		r = an_unit_is_piece(u) ? push_piece(s, tmp, dir, u) : link_one(tmp, dir, u->name);
	}
	return r ? r : push_input(s, an_strdup(tmp), di);
}

static int merge(struct an_shard *shards, size_t n, struct an_log *log)
{
	struct an_vec all = AN_VEC(struct an_stream *);
	int r = 0;

	for (size_t s = 0; s < n && !r; s++) {
		if (shards[s].status == -ECANCELED)
			return -ECANCELED;
		if (shards[s].status < 0)
			r = -EAGAIN;
		for (size_t i = 0; i < shards[s].streams.n && !r; i++) {
			struct an_stream *st = *AN_AT(&shards[s].streams, struct an_stream *, i);
			struct an_stream **slot = an_vec_push(&all);

			if (st->error)
				r = -EAGAIN;
			else if (!slot)
				r = -ENOMEM;
			else
				*slot = st;
		}
	}
	if (!r)
		r = an_merge(all.v, all.n, log);
	an_vec_free(&all);
	return r;
}

/* The shards' threads tell the main thread when their streams are decoded. */
struct crew {
	pthread_mutex_t lock;
	pthread_cond_t done;
	size_t decoded;
};

struct worker {
	struct an_shard *shard;
	struct crew *crew;
	pthread_t thread;
	bool started;
};

/* The shard's pieces written (copied by each shard's thread, side by side), then decoded. */
static void decode(struct an_shard *s, void (*progress)(uint64_t events, void *arg), void *arg)
{
	if (write_pieces(s) < 0)
		s->status = -EIO;
	else
		an_shard_decode(s, progress, arg);
}

static void *work(void *arg)
{
	struct worker *w = arg;

	decode(w->shard, NULL, NULL);
	pthread_mutex_lock(&w->crew->lock);
	w->crew->decoded++;
	pthread_cond_signal(&w->crew->done);
	pthread_mutex_unlock(&w->crew->lock);
	/* Freeing a graph takes a few ms: done while the main thread merges. */
	an_shard_close(w->shard);
	return NULL;
}

/*
 * The shards decoded: one on this thread (with the progress callback), several each on a
 * thread of its own, this one merging as soon as all are decoded (merge), then joining.
 */
static int run(struct an_shard *shards, size_t n, const struct an_options *opt, struct an_log *log)
{
	struct crew crew = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
	struct worker *w = n > 1 ? calloc(n, sizeof(*w)) : NULL;
	size_t expected = 0;
	int r;

	for (size_t s = 0; w && s < n; s++) {
		w[s] = (struct worker){.shard = &shards[s], .crew = &crew};
		w[s].started = pthread_create(&w[s].thread, NULL, work, &w[s]) == 0;
		expected += w[s].started;
	}
	for (size_t s = 0; s < n; s++)
		if (!w || !w[s].started) /* no thread: this one does it */
			decode(&shards[s], n == 1 && opt ? opt->progress : NULL,
			       opt ? opt->progress_arg : NULL);
	pthread_mutex_lock(&crew.lock);
	while (crew.decoded < expected)
		pthread_cond_wait(&crew.done, &crew.lock);
	pthread_mutex_unlock(&crew.lock);
	r = merge(shards, n, log);
	for (size_t s = 0; s < n; s++) {
		if (w && w[s].started)
			pthread_join(w[s].thread, NULL);
		else
			an_shard_close(&shards[s]);
	}
	free(w);
	return r;
}

/* The component classes of each shard: the ctf plugin found, then loaded again per shard. */
struct classes {
	const bt_plugin *ctf;
	const bt_plugin_set **more;
	size_t n;
};

static const bt_component_class_source *fs_of(const bt_plugin *p)
{
	return p && strcmp(bt_plugin_get_name(p), "ctf") == 0
		       ? bt_plugin_borrow_source_component_class_by_name_const(p, "fs")
		       : NULL;
}

static int classes_get(struct classes *c, struct an_shard *shards, size_t n)
{
	const char *path;

	c->n = n;
	c->more = calloc(n, sizeof(*c->more));
	if (!c->more)
		return -ENOMEM;
	if (bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, &c->ctf) !=
	    BT_PLUGIN_FIND_STATUS_OK)
		return -EAGAIN; /* the muxed pass says it */
	path = bt_plugin_get_path(c->ctf);
	for (size_t s = 0; s < n; s++) {
		shards[s].fs = fs_of(c->ctf);
		if (s && (!path || bt_plugin_find_all_from_file(path, BT_TRUE, &c->more[s]) !=
					   BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK))
			return -EAGAIN;
		for (uint64_t i = 0; s && i < bt_plugin_set_get_plugin_count(c->more[s]); i++)
			if (fs_of(bt_plugin_set_borrow_plugin_by_index_const(c->more[s], i)))
				shards[s].fs = fs_of(
					bt_plugin_set_borrow_plugin_by_index_const(c->more[s], i));
		shards[s].sink_cls = an_stream_sink_class();
		if (!shards[s].fs || !shards[s].sink_cls || (s && shards[s].fs == shards[0].fs))
			return -EAGAIN;
	}
	return 0;
}

/* After the shards' graphs are gone: the classes are destroyed on this thread. */
static void classes_put(struct classes *c, struct an_shard *shards)
{
	for (size_t s = 0; shards && s < c->n; s++)
		BT_COMPONENT_CLASS_SINK_PUT_REF_AND_RESET(shards[s].sink_cls);
	for (size_t s = 0; c->more && s < c->n; s++)
		bt_plugin_set_put_ref(c->more[s]);
	free(c->more);
	bt_plugin_put_ref(c->ctf);
}

/* The shards no unit went to (no file could be cut for them) left out: how many are left. */
static size_t drop_empty(struct an_vec *units, struct an_shard *shards, size_t n)
{
	size_t kept = 0;

	for (size_t s = 0; s < n; s++) {
		bool used = false;

		for (size_t i = 0; i < units->n && !used; i++)
			used = AN_AT(units, struct an_unit, i)->shard == s;
		if (!used)
			continue;
		for (size_t i = 0; i < units->n; i++)
			if (AN_AT(units, struct an_unit, i)->shard == s)
				AN_AT(units, struct an_unit, i)->shard = kept;
		shards[kept++] = shards[s];
	}
	return kept;
}

int an_read_streams(struct an_vec *dirs, struct an_pass *pass, struct an_log *log, char **why)
{
	struct an_vec units = AN_VEC(struct an_unit);
	struct an_shard *shards = NULL;
	struct classes cls = {0};
	uint64_t bytes = 0;
	size_t n = pass->threads;
	int r = 0;

	for (size_t i = 0; i < dirs->n && !r; i++) {
		const char *dir = *AN_AT(dirs, char *, i);
		char *e = NULL;

		if (an_check_metadata(dir, pass->opt, &e) < 0 || an_check_streams(dir, &e) < 0)
			r = -EAGAIN;
		free(e);
		if (!r)
			r = list_units(i, dir, &units);
	}
	if (r < 0 || !units.n) {
		r = r < 0 ? r : -EAGAIN; /* nothing to read: the muxed pass says so */
		goto out;
	}
	for (size_t i = 0; i < units.n; i++)
		bytes += AN_AT(&units, struct an_unit, i)->bytes;
	/* More shards than files where files can be cut (deal.c), each of 512 KiB at least. */
	if (n > units.n) {
		size_t most = (size_t)(bytes / SPLIT_MIN_BYTES);

		n = units.n > most ? units.n : n < most ? n : most;
	}
	if (n < 1 || bytes < SPLIT_MIN_BYTES || (pass->opt && pass->opt->progress))
		n = 1;
	shards = calloc(n, sizeof(*shards));
	if (!shards) {
		r = -ENOMEM;
		goto out;
	}
	pass->cuts += an_deal(&units, dirs, shards, n);
	n = drop_empty(&units, shards, n);
	for (size_t s = 0; s < n && !r; s++) {
		shards[s].inputs.size = shards[s].links.size = sizeof(char *);
		shards[s].traces.size = sizeof(uint32_t);
		shards[s].pieces.size = sizeof(struct an_piece);
		shards[s].stop = pass->stop;
		for (size_t i = 0; i < dirs->n && !r; i++)
			r = shard_input(&shards[s], s, *AN_AT(dirs, char *, i), i, &units);
	}
	if (!r)
		r = classes_get(&cls, shards, n);
	if (r < 0)
		goto out;
	r = run(shards, n, pass->opt, log);
	for (size_t s = 0; s < n; s++) {
		pass->graphs++;
		pass->sources += (unsigned)shards[s].inputs.n;
		pass->messages += shards[s].messages;
	}
	if (r == -ECANCELED)
		*why = an_asprintf("stopped");
out:
	classes_put(&cls, shards);
	for (size_t s = 0; shards && s < n; s++)
		an_shard_free(&shards[s]);
	free(shards);
	for (size_t i = 0; i < units.n; i++)
		free(AN_AT(&units, struct an_unit, i)->name);
	an_vec_free(&units);
	if (r == -ENOMEM && !*why)
		*why = an_asprintf("out of memory");
	return r;
}
