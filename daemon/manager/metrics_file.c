// SPDX-License-Identifier: GPL-2.0-only
/*
 * metrics.textfile: the metrics written for node_exporter's textfile collector, which
 * reads the .prom files of its directory whenever Prometheus scrapes it. The file is replaced whole by a rename,
 * so that a scrape never reads half of it: the text goes to DIR/.NAME.tmp first (a name the
 * collector does not read), then takes the file's place. A write that fails is counted
 * (latencyd_metrics_textfile_failures_total) and logged once, then again when it works.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "log.h"
#include "manager.h"
#include "metrics.h"

static int write_text(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(path, '/');

	snprintf(tmp, sizeof(tmp), "%.*s/.%s.tmp", (int)(slash - path), path, slash + 1);
	/* 0644: node_exporter runs as its own user. Not durable: the next write replaces it. */
	return file_replace(path, tmp, text, strlen(text), false, 0644, 0);
}

static void write_now(struct manager *m)
{
	const char *path = m->conf->metrics.textfile;
	char *text = NULL;
	int r = manager_metrics_text(m, &text);

	if (r == 0)
		r = write_text(path, text);
	free(text);
	if (r < 0) {
		m->metrics_failures++;
		if (!m->metrics_failing)
			log_warnx("metrics.textfile %s: cannot write it: %s (latencyd tries again "
				  "every %" PRIu64 " s)",
				  path, strerror(-r), m->conf->metrics.interval_ns / 1000000000);
		m->metrics_failing = true;
	} else if (m->metrics_failing) {
		log_info("metrics.textfile %s written again", path);
		m->metrics_failing = false;
	}
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct manager *m = userdata;

	write_now(m);
	sd_event_source_set_time(s, usec + m->conf->metrics.interval_ns / 1000);
	return 0;
}

void manager_metrics_file_stop(struct manager *m)
{
	m->metrics_timer = sd_event_source_disable_unref(m->metrics_timer);
	m->metrics_failing = false;
}

int manager_metrics_file_apply(struct manager *m)
{
	uint64_t now;
	int r;

	manager_metrics_file_stop(m);
	if (!m->conf->metrics.textfile[0])
		return 0;
	r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(m->event, &m->metrics_timer, CLOCK_MONOTONIC, now, 0,
				      on_timer, m);
	if (r < 0)
		return log_warn_errno(r, "cannot set up the metrics.textfile timer");
	sd_event_source_set_description(m->metrics_timer, "metrics-textfile");
	sd_event_source_set_enabled(m->metrics_timer, SD_EVENT_ON);
	return 0;
}
