/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The manager's lifecycle: manager_new() sets up signals and the loop, manager_start()
 * starts the recorder's side (start.c), applies the trackers' settings, opens the control
 * socket and tells systemd READY=1, manager_run() serves until SIGTERM/SIGINT, and
 * manager_free() tears down in reverse order. A reload parses into a new configuration and
 * swaps it in only if it is valid.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include <json-c/json.h>

#include "log.h"
#include "thread.h"
#include "manager.h"

#define SYSFS_ROOT "/sys"

static int on_terminate(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct manager *m = userdata;

	log_info("received SIG%s, shutting down", sigabbrev_np((int)si->ssi_signo) ?: "?");
	sd_notify(0, "STOPPING=1\nSTATUS=Shutting down");
	return sd_event_exit(m->event, 0);
}

void manager_stop_failed(struct manager *m, const char *why)
{
	log_errx("%s; stopping, to exit with status %d for a restart", why, EXIT_FAILURE);
	sd_notifyf(0, "STOPPING=1\nSTATUS=Stopping: %s", why);
	m->exit_status = EXIT_FAILURE;
	sd_event_exit(m->event, EXIT_FAILURE);
}

static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	manager_reload(userdata, NULL);
	return 0;
}

static int add_signal(struct manager *m, sd_event_source **ret, int sig,
		      sd_event_signal_handler_t handler, const char *description)
{
	int r;

	r = sd_event_add_signal(m->event, ret, sig, handler, m);
	if (r < 0)
		return log_warn_errno(r, "cannot watch %s", description);
	sd_event_source_set_description(*ret, description);
	return 0;
}

static int copy_string(char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

/* Takes conf, even on failure. src says how conf was loaded, so that reloads do the same. */
int manager_new(const struct conf_source *src, struct conf *conf,
		const struct control_commands *commands, struct manager **ret)
{
	struct manager *m;
	sigset_t mask;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m) {
		conf_free(conf);
		return -ENOMEM;
	}
	m->conf = conf;
	/* For tests only: a fake sysfs tree (host tests of trackers, set-threshold...). */
	m->sysfs_root = secure_getenv("LATENCYD_TEST_SYSFS_ROOT") ?: SYSFS_ROOT;
	m->source.must_exist = src->must_exist;
	m->source.debug = src->debug;
	r = copy_string(&m->source.path, src->path);
	if (r >= 0)
		r = copy_string(&m->source.socket, src->socket);
	if (r < 0)
		goto fail;

	/* liblttng-ctl can raise SIGPIPE when sessiond goes away; sends use MSG_NOSIGNAL. */
	signal(SIGPIPE, SIG_IGN);
	/* sd-event takes signals through a signalfd: they must be blocked first. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		r = log_warn_errno(errno, "sigprocmask");
		goto fail;
	}

	r = sd_event_new(&m->event);
	if (r < 0) {
		log_warn_errno(r, "cannot create the event loop");
		goto fail;
	}
	if ((r = add_signal(m, &m->sigterm, SIGTERM, on_terminate, "signal-SIGTERM")) < 0 ||
	    (r = add_signal(m, &m->sigint, SIGINT, on_terminate, "signal-SIGINT")) < 0 ||
	    (r = add_signal(m, &m->sighup, SIGHUP, on_reload, "signal-SIGHUP")) < 0)
		goto fail;
	r = manager_watchdog_start(m);
	if (r < 0)
		goto fail;
	r = sd_event_now(m->event, CLOCK_MONOTONIC, &m->start_usec);
	if (r < 0)
		goto fail;
	r = control_new(m->event, &m->conf->control, commands, m, &m->control);
	if (r < 0)
		goto fail;
	*ret = m;
	return 0;

fail:
	manager_free(m);
	return r;
}

void manager_free(struct manager *m)
{
	if (!m)
		return;
	sd_event_source_disable_unref(m->watchdog);
	manager_cgroup_unwatch(m);
	manager_metrics_file_stop(m);
	manager_metrics_paged_free(m);
	manager_collector_stop(m);
	manager_stop_fleet(m);			/* first: its reader thread queues peers' alerts */
	recorder_free(m->recorder);		/* then: the waiter may be recording */
	sd_event_source_disable_unref(m->save); /* its change is in the save below */
	if (m->catalog) {
		catalog_save(m->catalog);
		catalog_free(m->catalog);
	}
	ksyms_cache_free(m->ksyms);
	kmodules_free(m->kmodules); /* the notification file is closed: modules can go */
	json_object_put(m->last_history);
	control_free(m->control);
	sd_event_source_disable_unref(m->sighup);
	sd_event_source_disable_unref(m->sigint);
	sd_event_source_disable_unref(m->sigterm);
	sd_event_unref(m->event);
	conf_free(m->conf);
	free(m->source.path);
	free(m->source.socket);
	free(m);
}

static void log_module(const struct kmodule_status *st)
{
	switch (st->state) {
	case KMODULE_NOT_LOADED:
		log_info("kernel module latency_tracker is not loaded");
		break;
	case KMODULE_LOADED:
		log_info("kernel module latency_tracker is loaded, ABI %u.%u", st->abi_major,
			 st->abi_minor);
		break;
	case KMODULE_ABI_MISMATCH:
	case KMODULE_ERROR:
		log_warnx("kernel module latency_tracker: %s", st->detail);
		break;
	}
}

int manager_start(struct manager *m)
{
	int r;

	/* First: every thread and the fleet's process start from here, and inherit it. */
	r = thread_pin(m->conf->realtime.cpus);
	if (r < 0)
		return log_warn_errno(r, "realtime.cpus: cannot run on CPUs %s",
				      m->conf->realtime.cpus);
	if (m->conf->realtime.cpus[0])
		log_info("latencyd runs on CPUs %s (realtime.cpus)", m->conf->realtime.cpus);
	if (m->conf->session.enabled) {
		r = manager_start_recorder(m);
		if (r >= 0)
			r = manager_start_fleet(m);
		if (r < 0)
			return r;
	}
	/* Whether or not this host records: a collector-only latencyd has no session. */
	r = manager_collector_start(m);
	if (r < 0)
		return r;
	r = manager_metrics_file_apply(m);
	if (r < 0)
		return r;
	manager_refresh_module(m);
	log_module(&m->module);
	trackers_apply(m->sysfs_root, m->conf, NULL);
	manager_cgroup_watch(m);
	r = control_listen(m->control, m->conf->control.socket);
	if (r < 0)
		return r;
	log_fields(LOG_INFO, (const char *const[]){LOG_MID_STARTED, NULL},
		   "latencyd %s listening on %s", LATENCYD_VERSION, control_path(m->control));
	sd_notifyf(0, "READY=1\nSTATUS=Listening on %s", control_path(m->control));
	return 0;
}

int manager_run(struct manager *m)
{
	int r;

	r = sd_event_loop(m->event);
	if (r < 0)
		return log_warn_errno(r, "event loop failed");
	/* Not the loop's code: a SIGTERM handled after the failure must not clear it. */
	return m->exit_status;
}

/*
 * The settings a reload does not apply: the objects made at start keep them. fleet.publish
 * and the fleet's buckets are not here: recorder_reconfigure() applies them.
 */
static const char *const restart_keys[] = {
	"control.socket",
	"module.load",
	"module.name",
	"module.parameters",
	"module.probe",
	"module.notify_path",
	"session.enabled",
	"catalog.directory",
	"realtime.priority",
	"realtime.lock_memory",
	"realtime.cpus",
	"realtime.waiter_per_cpu",
	"realtime.sessiond_boost",
	/* latencyd-fleet gets these once, when it is set up */
	"fleet.enabled",
	"fleet.broker",
	"fleet.ca_file",
	"fleet.cert_file",
	"fleet.key_file",
	"fleet.username",
	"fleet.password_file",
	"fleet.user",
	"fleet.topic_prefix",
	"fleet.host",
	"fleet.group",
	"fleet.record_peers",
	"fleet.max_age",
	"fleet.presence_every",
};

/*
 * Each of those changed in NEW gets RUNNING's value back, with a warning: the configuration
 * latencyctl config shows, and that the rest of latencyd reads, is the one that runs.
 */
static int keep_running_values(struct conf *new, const struct conf *running)
{
	int r;

	for (size_t i = 0; i < sizeof(restart_keys) / sizeof(restart_keys[0]); i++) {
		if (conf_same_value(running, new, restart_keys[i]))
			continue;
		r = conf_keep_value(new, running, restart_keys[i]);
		if (r < 0)
			return log_warn_errno(r, "reload: cannot keep the running %s",
					      restart_keys[i]);
		log_warnx("reload: %s changed: it takes effect at the next start, latencyd keeps "
			  "the running value until then",
			  restart_keys[i]);
	}
	return 0;
}

/*
 * SIGHUP and latencyctl reload: parse into a new conf, swap it in only if it is valid; else
 * keep the old one. The problems go to the log, and to *diag if given (taken over).
 */
int manager_reload(struct manager *m, struct conf_diag *out)
{
	const struct conf_source src = {
		.path = m->source.path,
		/* A file read before and missing now is a mistake more likely than a wish for the
		 * built-in defaults (retention with their limits would delete snapshots at once). */
		.must_exist = m->source.must_exist || m->conf->source != NULL,
		.socket = m->source.socket,
		.debug = m->source.debug,
	};
	struct conf_diag diag = {0};
	struct conf *conf = NULL;
	int r;

	sd_notify(0, "RELOADING=1\nSTATUS=Reloading the configuration");
	r = conf_load(&src, &conf, &diag);
	/* Also when it worked: a damaged saved-settings file is ignored with warnings. */
	for (size_t i = 0; i < diag.n; i++)
		log_warnx("%s", diag.lines[i]);
	if (r >= 0 && (r = keep_running_values(conf, m->conf)) < 0)
		conf_free(conf);
	if (r < 0) {
		log_warnx("reload failed, keeping the current configuration");
	} else {
		struct conf *old = m->conf;

		m->conf = conf;
		log_set_level(conf->log.level);
		control_reconfigure(m->control, &conf->control);
		if (m->recorder) {
			recorder_reconfigure(m->recorder, conf, old);
			manager_catalog_update(m); /* retention with the new limits */
		}
		trackers_apply(m->sysfs_root, conf, old);
		manager_cgroup_watch(m);
		manager_collector_reload(m); /* its new limits, applied at once */
		if (strcmp(old->metrics.textfile, conf->metrics.textfile) != 0 ||
		    old->metrics.interval_ns != conf->metrics.interval_ns)
			manager_metrics_file_apply(m);
		conf_free(old);
		log_info("configuration reloaded from %s", conf->source ?: "built-in defaults");
	}
	if (out)
		*out = diag;
	else
		conf_diag_clear(&diag);
	sd_notifyf(0, "READY=1\nSTATUS=Listening on %s", control_path(m->control) ?: "nothing");
	return r;
}
