/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel side as latencyd touches it, and the privileged boundary: loading and
 * unloading modules (modload.c, modules.c), the module's state and ABI (kmodule.c), the
 * trackers' sysfs files (tracker_sysfs.c, tracker_conf.c), cgroup ids (cgroup.c), memory
 * locking and the root check (priv.c). Every privileged step of latencyd is a call into
 * this folder; everything here returns 0 or -errno and knows nothing of the protocol's
 * replies.
 */
#ifndef LATENCYD_KERNEL_H
#define LATENCYD_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "conf.h"

/* kmodule.c: the latency_tracker module as seen in sysfs. */
enum kmodule_state {
	KMODULE_NOT_LOADED,
	KMODULE_LOADED,
	KMODULE_ABI_MISMATCH,
	KMODULE_ERROR,
};

struct kmodule_status {
	enum kmodule_state state;
	bool abi_known;
	unsigned abi_major, abi_minor;
	char detail[160];
};

int kmodule_parse_abi(const char *s, unsigned *major, unsigned *minor);
void kmodule_query(const char *sysfs_root, struct kmodule_status *st);
const char *kmodule_state_to_string(enum kmodule_state state);

/* modload.c: loading and unloading kernel modules with libkmod. */
struct modload;

int modload_new(struct modload **ret);
/* Loads NAME with PARAMS unless it is already there; *loaded says whether we loaded it. */
int modload_load(struct modload *ml, const char *name, const char *params, bool *loaded);
int modload_unload(struct modload *ml, const char *name);
bool modload_is_loaded(struct modload *ml, const char *name);
/* The state file of the modules an instance loaded: {"pid", "modules": [load order]}; as
 * file_replace() (FILE_DURABLE) returns. */
int modload_state_write(const char *path, pid_t pid, char *const *names, size_t n);
/* -ENOENT when there is none, -EBADMSG when it does not parse. */
int modload_state_read(const char *path, pid_t *pid, char ***names, size_t *n);
void modload_free(struct modload *ml);

/* modules.c: the modules this instance loaded, taken over from a killed one, unloaded at
 * exit. Fails with -EBUSY when another latencyd runs; *ret is set even on failure (free
 * it with kmodules_free()). */
struct kmodules;

int kmodules_start(const struct conf *c, struct kmodules **ret);
void kmodules_free(struct kmodules *km);

/* tracker_sysfs.c: SYSFS_ROOT/kernel/latency_tracker/NAME/FILE. */
/* -EINVAL: not a tracker name; -ENOENT: the kernel has no such tracker. */
int ktracker_check(const char *sysfs_root, const char *name);
int ktracker_read(const char *sysfs_root, const char *name, const char *file, uint64_t *ret);
/* The tracker directory's stat(): a module loaded again makes a new one. */
int ktracker_stat(const char *sysfs_root, const char *name, struct stat *st);
/* The file's first line, without its newline. */
int ktracker_read_text(const char *sysfs_root, const char *name, const char *file, char *buf,
		       size_t size);
/*
 * Writes TEXT (the kernel's refusal comes back as it is: -EINVAL out of range or in conflict
 * with the other settings, -EBUSY only while disabled). *opened: the file could be opened,
 * so an error is the write's.
 */
int ktracker_write_text(const char *sysfs_root, const char *name, const char *file,
			const char *text, bool *opened);
int ktracker_write(const char *sysfs_root, const char *name, const char *file, uint64_t value,
		   bool *opened);
/* The trackers the kernel has, sorted by name; -ENOENT when the module is not loaded. */
int ktracker_list(const char *sysfs_root, char ***names, size_t *n);
void ktracker_list_free(char **names, size_t n);
/* Calls FN for each counter of the tracker's stats/ directory. */
int ktracker_stats(const char *sysfs_root, const char *name,
		   void (*fn)(const char *counter, uint64_t value, void *userdata), void *userdata);
/* Says why a ktracker_write*() failed, for a user: "the kernel refused ..." */
void ktracker_write_problem(char *buf, size_t size, int r, bool opened, const char *name,
			    const char *file, const char *text);

/* tracker_conf.c: the trackers.* settings applied to the trackers the kernel has. On a
 * reload (OLD not NULL) what the edit changed is written, and what has not reached the
 * kernel yet (a tracker missing or loaded again since, a write refused). */
void trackers_apply(const char *sysfs_root, const struct conf *c, const struct conf *old);
/* Each filter_cgroup given as a path, resolved again: a cgroup re-created at that path (a
 * service restarted) has a new id, which replaces the old one in the kernel, unless the
 * filter was changed at run time since it was applied (latencyctl filter). */
void trackers_follow_cgroups(const char *sysfs_root, const struct conf *c);
/* latencyctl filter --save wrote the filter_cgroup (id ID) the configuration now holds. */
void trackers_cgroup_saved(const char *tracker, uint64_t id);

/* cgroup.c: "", a cgroup v2 path (relative to /sys/fs/cgroup or absolute) or an id. */
int cgroup_resolve(const char *spec, uint64_t *id, char *why, size_t whylen);
/* The directory SPEC names into PATH; false when SPEC is "", an id or no valid path. */
bool cgroup_spec_path(const char *spec, char *path, size_t size);

/* priv.c: the process-wide privileged steps at start. */
/* -EPERM (said in the log) when the configuration needs root and we are not. */
int priv_check_root(const struct conf *c);
/* mlockall() for realtime.lock_memory; false (said in the log) when it failed. */
bool priv_lock_memory(void);

/* ksyms.c: kernel addresses named from /proc/kallsyms. */
#define KSYMS_PATH	    "/proc/kallsyms"
#define KSYMS_MODULES_PATH  "/proc/modules"
#define KSYMS_RESTRICT_PATH "/proc/sys/kernel/kptr_restrict"
#define KSYMS_NAME_MAX	    128
#define KSYMS_MODULE_MAX    64
struct ksym {
	uint64_t address;
	bool found; /* else address is in no text symbol the file lists */
	uint64_t offset, size;
	char name[KSYMS_NAME_MAX];
	char module[KSYMS_MODULE_MAX]; /* "" in the kernel image */
};
/*
 * Names the N addresses from the kallsyms file at PATH into OUT[N]: how many were found,
 * -EPERM when the file shows no addresses (kptr_restrict without CAP_SYSLOG), or -errno.
 */
int ksyms_resolve(const char *path, const uint64_t *addr, size_t n, struct ksym *out);
/* "name+0xoff/0xsize [module]" as the kernel prints stacks, "?" when not found; the raw
 * address after it only with SHOW_ADDRESS. */
void ksym_text(const struct ksym *s, bool show_address, char *buf, size_t size);
/* The kernel.kptr_restrict sysctl at PATH (0, 1, 2), or -errno. */
int ksyms_kptr_restrict(const char *path);

/* ksyms_cache.c: ksyms_resolve() from the KALLSYMS file for addresses not named before,
 * while the module list (the MODULES file) stays as it was. */
struct ksyms_cache;
struct ksyms_cache *ksyms_cache_new(const char *kallsyms, const char *modules);
void ksyms_cache_free(struct ksyms_cache *kc);
/* As ksyms_resolve(). */
int ksyms_cache_resolve(struct ksyms_cache *kc, const uint64_t *addr, size_t n, struct ksym *out);

/* disks.c: each block device under DIR (/sys/dev/block) as FN("MAJ:MIN", "vda"); how many,
 * or -errno. */
#define KERNEL_DISKS_DIR "/sys/dev/block"
int kernel_disks(const char *dir, void (*fn)(const char *dev, const char *name, void *arg),
		 void *arg);
/* The same as a table, to name a histogram's disk keys and find a disk by name. */
#define KDISKS_MAX 256
struct kdisks {
	size_t n;
	struct {
		char dev[24];  /* "8:0" */
		char name[32]; /* "sda" */
	} v[KDISKS_MAX];
};
/* The block devices under SYSFS_ROOT/dev/block (none when it cannot be read). */
void kdisks_read(const char *sysfs_root, struct kdisks *d);
/*
 * Every block device's name into the module's device_names (ABI 1.5), which emits each as a
 * tracepoint for the session that just started: how many, *SIGNATURE the set written
 * (kdisks_signature_of); -errno (-ENOENT: a module without it).
 */
int kdisks_announce(const char *sysfs_root, uint64_t *signature);
/* What the machine's block devices are (now; in D), one number that changes with them. */
uint64_t kdisks_signature(const char *sysfs_root);
uint64_t kdisks_signature_of(const struct kdisks *d);
/* NAME's "MAJ:MIN", or NULL. */
const char *kdisks_dev(const struct kdisks *d, const char *name);
/* DEV's name, or "" when unknown. */
const char *kdisks_name(const struct kdisks *d, const char *dev);

#include "hist.h" /* hist.c: the trackers' histograms */

#endif /* LATENCYD_KERNEL_H */
