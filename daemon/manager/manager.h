/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The manager owns all of latencyd's state: the event loop, the configuration, the kernel
 * side (the modules it loaded), the catalog, the flight recorder and the control server.
 * manager.c: lifecycle and reload; start.c: the start sequence, privileged steps first;
 * events.c: what the recorder reports, turned into catalog entries, log lines and events
 * for watching clients; save.c: the catalog to disk. Lifecycle: manager_new() →
 * manager_start() → manager_run() → manager_free(), in reverse order.
 */
#ifndef LATENCYD_MANAGER_H
#define LATENCYD_MANAGER_H

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "catalog.h"
#include "conf.h"
#include "control.h"
#include "fleet_client.h"
#include "kernel.h"
#include "metrics.h"
#include "recorder.h"

struct json_object;
struct metrics_renderings;

struct manager {
	sd_event *event;
	sd_event_source *sigterm, *sigint, *sighup;
	struct conf *conf;
	struct {
		char *path;
		bool must_exist;
		char *socket;
		bool debug;
	} source; /* how conf was loaded, kept for reloads */
	struct control *control;
	struct kmodule_status module;
	struct kmodules *kmodules; /* the modules we loaded; NULL without the recorder */
	struct catalog *catalog;   /* NULL without the recorder (session.enabled = false) */
	struct ksyms_cache *ksyms; /* the stacks' names so far; NULL before the first */
	sd_event_source *save;	   /* a catalog save due (manager_catalog_changed), or off */
	struct recorder *recorder;
	struct fleet *fleet;		 /* fleet.enabled, with the recorder */
	sd_event_source *fleet_notes;	 /* what the fleet's reader thread has for the main loop */
	struct fleet_state *fleet_state; /* members, outbox, answers (fleet_state.h) */
	bool memory_locked;
	/* The last history measured (status.history.measured), NULL before the first one. */
	struct json_object *last_history;
	const char *sysfs_root;	   /* "/sys"; tests point it at a fake tree */
	uint64_t start_usec;	   /* CLOCK_MONOTONIC */
	sd_event_source *watchdog; /* the systemd watchdog's pings (watchdog.c), or NULL */
	uint64_t watchdog_usec;	   /* its period, 0: none */
	bool watchdog_held;	   /* pings held back: the waiter is stuck */
	/* collector.enabled: the timer of retention over lttng-relayd's tree (collector.c) */
	sd_event_source *collector;
	/* metrics.textfile: its timer, writes that failed, whether the last one did */
	sd_event_source *metrics_timer;
	uint64_t metrics_failures;
	bool metrics_failing;
	/* The block devices whose names the kernel session holds (kdisks_signature), if any */
	uint64_t devices_named;
	bool devices_announced;
	/* The metrics texts clients are reading in parts, by rendering id (metrics.c) */
	struct metrics_renderings *metrics_paged;
	/* The directories above the trackers' filter_cgroup paths, watched (cgroup_watch.c) */
	struct cgroup_watch {
		sd_event_source *source;
		char *dir;
	} * cgroup_watch;
	size_t n_cgroup_watch;
	/* What manager_run() returns once the loop ends: 0, or EXIT_FAILURE (manager_stop_failed) */
	int exit_status;
};

/* Takes conf, even on failure. src says how conf was loaded, so that reloads do the same. */
int manager_new(const struct conf_source *src, struct conf *conf,
		const struct control_commands *commands, struct manager **ret);
int manager_start(struct manager *m);
/* Serves until a stop: the exit status (0, or EXIT_FAILURE), < 0 when the loop failed. */
int manager_run(struct manager *m);
/*
 * Stops the way SIGTERM does (the catalog saved, the session destroyed), for a failure that
 * leaves latencyd useless until it restarts (WHY, logged at error priority): manager_run()
 * then returns EXIT_FAILURE, for systemd's Restart=on-failure.
 */
void manager_stop_failed(struct manager *m, const char *why);
/* SIGHUP and latencyctl reload; the problems go to the log, and to *diag if given. */
int manager_reload(struct manager *m, struct conf_diag *diag);
void manager_free(struct manager *m);

/* events.c */
void manager_on_recorder(const struct recorder_event *ev, void *userdata);
/* save.c */
/* Retention, then the catalog to disk, now. */
void manager_catalog_update(struct manager *m);
/* The catalog changed in a way that may wait: saved within a second. */
void manager_catalog_changed(struct manager *m);
/* Before undeletable snapshots are counted for status or metrics: true to the disk, not
 * to the last deletion tried, within CATALOG_RECHECK_USEC (catalog_recheck_undeletable()). */
void manager_catalog_recheck(struct manager *m);
int manager_catalog_timer(struct manager *m);

/* peers.c: the fleet, between the recorder, the catalog and the broker. */
int manager_start_fleet(struct manager *m);
/* A local cause is being recorded: published as an incident. */
void manager_fleet_publish(struct manager *m, const char *incident, const struct cause *c);
/* A snapshot was recorded: its result (recorded, failed) is published. */
void manager_fleet_snapshot(struct manager *m, const struct recorder_snapshot *s);
/*
 * A peer's alert suppressed past its admission: the budgets refuse peers' alerts as they
 * are queued (waiter_peer()), so this is one that could not join a snapshot (out of
 * memory), answered under the origin's budget.
 */
void manager_fleet_refused(struct manager *m, const struct cause *c);
/* A peer's alert that went stale while queued for the waiter: answered stale, as one
 * judged so on arrival. */
void manager_fleet_stale(struct manager *m, const struct cause *c);
/* The other members online, as their presences say. */
size_t manager_fleet_members_online(struct manager *m);
/* Peers' results naming an incident this host does not keep, dropped (peers.c). */
uint64_t manager_fleet_unknown_results(struct manager *m);
void manager_stop_fleet(struct manager *m);
/* watchdog.c: pings the systemd watchdog, if there is one, while the waiter is not stuck. */
int manager_watchdog_start(struct manager *m);
/* cgroup_watch.c: the trackers' filter_cgroup paths followed as their cgroups are made
 * again; called after each apply of the configuration. */
void manager_cgroup_watch(struct manager *m);
void manager_cgroup_unwatch(struct manager *m);
/* collector.c: on the fleet's collector, retention over lttng-relayd's tree. */
int manager_collector_start(struct manager *m);
/* After a reload: on or off as the configuration says; when on, a pass now. */
void manager_collector_reload(struct manager *m);
void manager_collector_stop(struct manager *m);
/* What the last pass found and what the passes deleted since start; false when off. */
struct collector_status {
	size_t kept; /* incidents (or lone snapshots) under the directory */
	uint64_t kept_bytes;
	uint64_t deleted, deleted_bytes; /* deleted_bytes: what went, in part or whole */
	uint64_t deleted_in_part;	 /* incidents: a deletion failed past its check */
	uint64_t last_pass_realtime_ns;	 /* 0: none yet */
	char problem[200];		 /* what the last pass could not read or delete, "" */
};
bool manager_collector_status(struct manager *m, struct collector_status *st);

/* stacks.c: each alert cause's kernel stack (the first N of entry E's causes were taken as
 * C) named through KSYMS (the KALLSYMS file's names; NULL: out of memory), as the cause's
 * stack. */
void manager_stacks_add(struct catalog_entry *e, const struct cause *c, size_t n,
			struct ksyms_cache *ksyms, const char *kallsyms, const char *kptr_restrict);

/* start.c */
/* The recorder's side: privileges, modules, catalog, session, waiter. */
int manager_start_recorder(struct manager *m);
/* m->module: the kernel module's state now (at start, and for status). */
void manager_refresh_module(struct manager *m);

#endif /* LATENCYD_MANAGER_H */
