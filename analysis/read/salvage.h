/* SPDX-License-Identifier: GPL-2.0-only */
/* salvage.c: damaged traces, for the reader (reader.c) to read what is left of them. */
#ifndef LATENCY_ANALYSIS_SALVAGE_H
#define LATENCY_ANALYSIS_SALVAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "an.h"

struct an_options;
/*
 * Dir's metadata file for babeltrace2 to read: its packets whole, and within OPT's limits
 * (NULL: the defaults) of bytes and event classes; else -EBADMSG or -EFBIG (-EIO:
 * unreadable), *why naming the file and what is wrong.
 */
int an_check_metadata(const char *dir, const struct an_options *opt, char **why);
/*
 * In a trace of LTTng's layout, every packet of every stream file whole and readable by
 * babeltrace2 (which aborts on some headers); else -EBADMSG, *why naming the file, for
 * an_salvage() to keep the packets before the first bad one.
 */
int an_check_streams(const char *dir, char **why);
/*
 * A directory of links to dir's metadata and the stream files error does not name, with
 * the complete packets of those it names when their index says where they end (what was
 * done to each is pushed to dropped, char *); -ENOENT when no file is named or none is left.
 * AGAIN: dir is such a directory, salvaged again (the copies it holds are moved).
 */
int an_salvage(const char *dir, bool again, const char *error, char **tmpdir,
	       struct an_vec *dropped);
void an_rm_salvage(const char *tmpdir);
/* to, made (not there before), holding bytes [off, off + n) of from; 0 or -errno. */
int an_copy_range(const char *from, const char *to, uint64_t off, uint64_t n);
/* tmp/name, a symbolic link to dir/name's absolute path; 0 or -errno. */
int an_link_into(const char *tmp, const char *dir, const char *name);

#endif /* LATENCY_ANALYSIS_SALVAGE_H */
