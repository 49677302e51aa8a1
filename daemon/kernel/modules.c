/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel modules this instance loads (the core, each tracker, the LTTng probe) and
 * unloads at exit, in reverse order. Their names go to a state file in the runtime
 * directory, so that if latencyd is killed the next instance takes them over (and
 * unloads them when it stops) instead of leaving them loaded for ever.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latency_tracker.h>

#include "fsutil.h"
#include "kernel.h"
#include "log.h"

struct kmodules {
	const struct conf *conf;	 /* the configuration at start: module.* need a restart */
	struct modload *modload;	 /* NULL with module.load = false */
	char *loaded[2 + TRACKER_COUNT]; /* modules we loaded, unloaded in reverse order */
	size_t n_loaded;
	char *state_path; /* RUNTIME_DIR/modules.json: loaded[], for a successor if we are killed */
	bool state_foreign; /* that file is another running latencyd's: leave it alone */
};

static void save_state(struct kmodules *km)
{
	int r = modload_state_write(km->state_path, getpid(), km->loaded, km->n_loaded);

	if (r < 0)
		log_warn_errno(r,
			       "cannot write %s: if latencyd is killed, the next one will not "
			       "unload the modules it loaded",
			       km->state_path);
	else if (r > 0)
		log_warnx("%s written, but its directory cannot be synced: %s: a crash may bring "
			  "back the list before it",
			  km->state_path, strerror(r));
}

static bool remember(struct kmodules *km, const char *name)
{
	if (km->n_loaded == sizeof(km->loaded) / sizeof(km->loaded[0]) ||
	    !(km->loaded[km->n_loaded] = strdup(name)))
		return false;
	km->n_loaded++;
	save_state(km);
	return true;
}

/* What to do about a module the kernel would not load, after its errno. */
static const char *load_hint(int r)
{
	switch (r) {
	case -ENOENT:
		return " (not installed? see modinfo)";
	case -ENOKEY:
	case -EKEYREJECTED:
		/* init_module(2) under Secure Boot or module.sig_enforce=1, unsigned or signed
		 * by a key the kernel does not trust. */
		return ": the kernel takes signed modules only (Secure Boot, or "
		       "module.sig_enforce=1): enrol the key DKMS signs them with, mokutil "
		       "--import /var/lib/dkms/mok.pub, then reboot and confirm "
		       "(latency_tracker(4), SECURE BOOT)";
	default:
		return "";
	}
}

/* Loads NAME unless it is there; a module we loaded is unloaded at exit. */
static int load_module(struct kmodules *km, const char *name, const char *params, bool required)
{
	bool loaded;
	int r;

	for (size_t i = 0; i < km->n_loaded; i++)
		if (strcmp(km->loaded[i], name) == 0)
			return 0; /* adopted */
	r = modload_load(km->modload, name, params, &loaded);
	if (r == -ENOENT && !required) {
		log_debug("kernel module %s is not installed", name);
		return 0;
	}
	/* A disabled tracker's module that will not load is that tracker's loss alone. */
	if (r < 0 && !required) {
		log_warnx("cannot load kernel module %s: %s%s (not needed: its tracker is "
			  "disabled)",
			  name, strerror(-r), load_hint(r));
		return 0;
	}
	if (r < 0) {
		log_warnx("cannot load kernel module %s: %s%s", name, strerror(-r), load_hint(r));
		return r;
	}
	if (loaded) {
		remember(km, name);
		log_info("loaded kernel module %s", name);
	}
	return 0;
}

static void module_names(const struct conf *c, char names[][64], size_t *n)
{
	*n = 0;
	snprintf(names[(*n)++], 64, "%s", c->module.name);
	for (size_t i = 0; i < TRACKER_COUNT; i++)
		snprintf(names[(*n)++], 64, "%s%s", LATENCY_TRACKER_TRACKER_MODULE_PREFIX,
			 tracker_names[i]);
	if (c->module.probe[0])
		snprintf(names[(*n)++], 64, "%s", c->module.probe);
}

/* Whether PID is a latencyd still running: not a zombie, not a process that got its pid. */
static bool latencyd_alive(pid_t pid)
{
	char path[64], stat[128] = "", *end;
	FILE *f;

	if (pid == getpid() || (kill(pid, 0) < 0 && errno != EPERM))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(stat, sizeof(stat), f))
		stat[0] = 0;
	fclose(f);
	/* "PID (COMM) STATE ...": COMM may hold anything, so look from the last ')'. */
	end = strrchr(stat, ')');
	return end && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X' &&
	       strncmp(strchr(stat, '(') ? strchr(stat, '(') + 1 : "", "latencyd)", 9) == 0;
}

/*
 * The modules a killed latencyd loaded are ours to unload now: the state file it left
 * names them. A live latencyd's file means another instance runs here: refuse to start.
 */
static int adopt_modules(struct kmodules *km)
{
	const struct conf *c = km->conf;
	char names[2 + TRACKER_COUNT][64], **old = NULL, adopted[512] = "";
	size_t n_names, n_old = 0, len = 0;
	pid_t pid = 0;
	int r;

	r = modload_state_read(km->state_path, &pid, &old, &n_old);
	if (r == -ENOENT)
		goto out_save;
	if (r < 0) {
		log_warnx("ignoring %s: %s", km->state_path,
			  r == -EBADMSG ? "not a latencyd state file" : strerror(-r));
		goto out_save;
	}
	if (latencyd_alive(pid)) {
		log_warnx("latencyd %d is running (%s): not starting another one", (int)pid,
			  km->state_path);
		km->state_foreign = true;
		r = -EBUSY;
		goto out;
	}
	module_names(c, names, &n_names);
	for (size_t i = 0; km->modload && i < n_old; i++) {
		bool ours = false;

		for (size_t k = 0; k < n_names && !ours; k++)
			ours = strcmp(old[i], names[k]) == 0;
		if (!ours || !modload_is_loaded(km->modload, old[i]) || !remember(km, old[i]))
			continue;
		if (len < sizeof(adopted))
			len += (size_t)snprintf(adopted + len, sizeof(adopted) - len, "%s%s",
						len ? ", " : "", old[i]);
	}
	if (km->n_loaded)
		log_warnx("latencyd %d stopped without unloading the kernel modules it loaded "
			  "(killed?): %s; this instance takes them over and unloads them when it "
			  "stops",
			  (int)pid, adopted);
	else if (n_old && !km->modload)
		log_warnx("latencyd %d left kernel modules loaded (see %s); module.load = false: "
			  "they stay",
			  (int)pid, km->state_path);
out_save:
	save_state(km);
	r = 0;
out:
	for (size_t i = 0; i < n_old; i++)
		free(old[i]);
	free(old);
	return r;
}

/*
 * The state file goes in the control socket's directory, /run/latencyd by default: a
 * runtime directory, configured with the socket, and gone at reboot with the modules.
 */
static int state_path_of(const struct conf *c, char **ret)
{
	const char *slash = strrchr(c->control.socket, '/');
	int len = slash ? (int)(slash - c->control.socket) : 1;

	char *dir;
	int r;

	if (asprintf(&dir, "%.*s", len, slash ? c->control.socket : ".") < 0)
		return -ENOMEM;
	r = dir[0] ? mkdir_p(dir, 0755) : 0;
	if (r < 0)
		log_warn_errno(r, "cannot create %s", dir);
	else if (asprintf(ret, "%s/modules.json", dir) < 0)
		r = -ENOMEM;
	free(dir);
	return r;
}

/*
 * The core, then every tracker (a disabled tracker registers no probe: loading it costs
 * nothing and lets latencyctl enable it), then the LTTng probe. A tracker the
 * configuration enables must be installed; the others may be missing. First, the modules
 * a killed instance left are taken over.
 */
static int load_modules(struct kmodules *km)
{
	const struct conf *c = km->conf;
	char name[64];
	int r;

	r = load_module(km, c->module.name, c->module.parameters, true);
	for (size_t i = 0; r >= 0 && i < TRACKER_COUNT; i++) {
		snprintf(name, sizeof(name), "%s%s", LATENCY_TRACKER_TRACKER_MODULE_PREFIX,
			 tracker_names[i]);
		r = load_module(km, name, NULL, c->trackers[i].enabled);
		if (r < 0)
			log_warnx("trackers.%s.enabled = true needs module %s", tracker_names[i],
				  name);
	}
	if (r >= 0 && c->module.probe[0])
		r = load_module(km, c->module.probe, NULL, true);
	return r;
}

int kmodules_start(const struct conf *c, struct kmodules **ret)
{
	struct kmodules *km = calloc(1, sizeof(*km));
	int r;

	if (!km)
		return -ENOMEM;
	*ret = km;
	km->conf = c;
	r = c->module.load ? modload_new(&km->modload) : 0;
	if (r < 0)
		return log_warn_errno(r, "cannot initialise libkmod");
	r = state_path_of(c, &km->state_path);
	if (r < 0)
		return r;
	r = adopt_modules(km);
	if (r < 0)
		return r;
	if (c->module.load && (r = load_modules(km)) < 0)
		return r;
	km->conf = NULL; /* the caller's configuration may be replaced by a reload */
	return 0;
}

void kmodules_free(struct kmodules *km)
{
	if (!km)
		return;
	for (size_t i = km->n_loaded; i-- > 0;) {
		int r = modload_unload(km->modload, km->loaded[i]);

		if (r < 0) {
			log_warn_errno(r, "cannot unload kernel module %s", km->loaded[i]);
			continue;
		}
		log_info("unloaded kernel module %s", km->loaded[i]);
		free(km->loaded[i]);
		memmove(&km->loaded[i], &km->loaded[i + 1], (--km->n_loaded - i) * sizeof(char *));
	}
	/* What could not be unloaded stays in the file, for the next instance to try. */
	if (km->state_path && km->n_loaded)
		save_state(km);
	else if (km->state_path && !km->state_foreign)
		unlink(km->state_path);
	for (size_t i = 0; i < km->n_loaded; i++)
		free(km->loaded[i]);
	free(km->state_path);
	modload_free(km->modload);
	free(km);
}
