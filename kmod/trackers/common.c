// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers shared by the tracker modules, see common.h. Each tracker module links its
 * own copy and owns one tracker, so the sysfs files find their filter through
 * ltt_filter_cur.
 */
#include <linux/cgroup.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/threads.h>

#ifdef CONFIG_X86
#include <asm/unwind.h>
#endif

#include "common.h"
#include "../src/wrapper.h"

struct ltt_tp_lookup {
	struct ltt_probe *p;
	unsigned int n;
};

static void ltt_tp_match(struct tracepoint *tp, void *priv)
{
	struct ltt_tp_lookup *l = priv;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(tp->name, l->p[i].name))
			l->p[i].tp = tp;
	}
}

/* The module's probes, for its "probes" sysfs file. */
static struct ltt_probe *ltt_probes_cur;
static unsigned int ltt_probes_cur_n;

int ltt_probes_find(struct ltt_probe *p, unsigned int n)
{
	struct ltt_tp_lookup l = { .p = p, .n = n };
	unsigned int i;

	ltt_probes_cur = p;
	ltt_probes_cur_n = n;

	for_each_kernel_tracepoint(ltt_tp_match, &l);
	for (i = 0; i < n; i++) {
		if (!p[i].tp) {
			pr_err("kernel tracepoint %s not found\n", p[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

int ltt_probes_register(struct ltt_probe *p, unsigned int n, void *data)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = tracepoint_probe_register(p[i].tp, p[i].func, data);
		if (ret) {
			ltt_probes_unregister(p, i, data);
			return ret;
		}
		WRITE_ONCE(p[i].registered, true);
	}
	return 0;
}

void ltt_probes_unregister(struct ltt_probe *p, unsigned int n, void *data)
{
	unsigned int i;

	for (i = n; i-- > 0;) {
		if (p[i].registered)
			WARN_ON_ONCE(tracepoint_probe_unregister(p[i].tp, p[i].func, data));
		WRITE_ONCE(p[i].registered, false);
	}
	tracepoint_synchronize_unregister();
}

int ltt_probes_activate(struct latency_tracker *t)
{
	return ltt_probes_register(ltt_probes_cur, ltt_probes_cur_n, NULL);
}

void ltt_probes_deactivate(struct latency_tracker *t)
{
	ltt_probes_unregister(ltt_probes_cur, ltt_probes_cur_n, NULL);
}

struct latency_tracker *ltt_tracker_create(const struct latency_tracker_params *p,
					   struct ltt_probe *probes, unsigned int n,
					   struct ltt_filter *f)
{
	struct latency_tracker *t;
	int ret;

	ret = ltt_probes_find(probes, n);
	if (ret)
		return ERR_PTR(ret);
	t = latency_tracker_create(p);
	if (IS_ERR(t))
		return t;
	ret = ltt_filter_add(t, f);
	if (ret) {
		latency_tracker_destroy(t);
		return ERR_PTR(ret);
	}
	return t;
}

void ltt_tracker_destroy(struct latency_tracker *t, struct ltt_filter *f)
{
	/*
	 * Unregisters the probes, though a write to "enabled" may register them again until
	 * latency_tracker_destroy() removes the file and disables the tracker for good.
	 */
	latency_tracker_disable(t);
	ltt_filter_del(t, f);
	latency_tracker_destroy(t);
}

bool ltt_filter_slow(const struct ltt_filter_conf *c, struct task_struct *task)
{
	if (c->tgid && task->tgid != c->tgid)
		return false;
	if (c->tid && task->pid != c->tid)
		return false;
	if (c->comm[0] && strncmp(task->comm, c->comm, TASK_COMM_LEN))
		return false;
#ifdef CONFIG_CGROUPS
	if (c->cgroup_id) {
		/* RCU read side held by the caller: task_css_set() is valid. */
		struct cgroup *anc = cgroup_ancestor(task_dfl_cgroup(task), c->cgroup_level);

		if (!anc || cgroup_id(anc) != c->cgroup_id)
			return false;
	}
#endif
	return true;
}

static struct ltt_filter *ltt_filter_cur;

enum ltt_filter_field { LTT_F_TGID, LTT_F_TID, LTT_F_COMM, LTT_F_CGROUP };

static ssize_t ltt_filter_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf,
			       enum ltt_filter_field which)
{
	struct ltt_filter *f = ltt_filter_cur;
	struct ltt_filter_conf *c;
	ssize_t ret;

	mutex_lock(&f->lock);
	c = rcu_dereference_protected(f->conf, lockdep_is_held(&f->lock));
	switch (which) {
	case LTT_F_TGID:
		ret = sysfs_emit(buf, "%d\n", c ? c->tgid : 0);
		break;
	case LTT_F_TID:
		ret = sysfs_emit(buf, "%d\n", c ? c->tid : 0);
		break;
	case LTT_F_COMM:
		ret = sysfs_emit(buf, "%s\n", c ? c->comm : "");
		break;
	default:
		ret = sysfs_emit(buf, "%llu\n", c ? c->cgroup_id : 0ULL);
		break;
	}
	mutex_unlock(&f->lock);
	return ret;
}

/* Strict: one value, at most one trailing newline, nothing else. */
static int ltt_filter_parse(const char *buf, size_t count, enum ltt_filter_field which,
			    struct ltt_filter_conf *n)
{
	size_t len = count;
	u64 v;
	int ret;

	if (len && buf[len - 1] == '\n')
		len--;
	if (memchr(buf, '\0', len))
		return -EINVAL;
	if (which == LTT_F_COMM) {
		if (len >= TASK_COMM_LEN)
			return -EINVAL;
		memset(n->comm, 0, sizeof(n->comm));
		memcpy(n->comm, buf, len);
		return 0;
	}
	if (!len || len > 20 || buf[0] == '+' || buf[0] == '-' || buf[0] == ' ')
		return -EINVAL;
	{
		char tmp[21];

		memcpy(tmp, buf, len);
		tmp[len] = '\0';
		ret = kstrtou64(tmp, 10, &v);
	}
	if (ret)
		return -EINVAL;
	if (which == LTT_F_CGROUP) {
		n->cgroup_id = v;
		n->cgroup_level = 0;
		if (!v)
			return 0;
		/* -ENOENT: no cgroup v2 cgroup has this id (or no cgroups at all). */
		ret = lt_cgroup_level_of_id(v);
		if (ret < 0)
			return ret;
		n->cgroup_level = ret;
		return 0;
	}
	if (v > PID_MAX_LIMIT)
		return -EINVAL;
	if (which == LTT_F_TGID)
		n->tgid = v;
	else
		n->tid = v;
	return 0;
}

static ssize_t ltt_filter_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count, enum ltt_filter_field which)
{
	struct ltt_filter *f = ltt_filter_cur;
	struct ltt_filter_conf *old, *n;
	int ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	mutex_lock(&f->lock);
	old = rcu_dereference_protected(f->conf, lockdep_is_held(&f->lock));
	if (old)
		memcpy(n, old, sizeof(*n));
	ret = ltt_filter_parse(buf, count, which, n);
	if (ret) {
		mutex_unlock(&f->lock);
		kfree(n);
		return ret;
	}
	if (!n->tgid && !n->tid && !n->comm[0] && !n->cgroup_id) {
		kfree(n);
		n = NULL;
	}
	rcu_assign_pointer(f->conf, n);
	mutex_unlock(&f->lock);
	if (old)
		kfree_rcu(old, rcu);
	return count;
}

#define LTT_FILTER_ATTR(_name, _which)						\
static ssize_t _name##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
			    char *buf)						\
{										\
	return ltt_filter_show(kobj, attr, buf, _which);			\
}										\
static ssize_t _name##_store(struct kobject *kobj, struct kobj_attribute *attr,	\
			     const char *buf, size_t count)			\
{										\
	return ltt_filter_store(kobj, attr, buf, count, _which);		\
}										\
static struct kobj_attribute ltt_##_name##_attr = __ATTR_RW(_name)

LTT_FILTER_ATTR(filter_tgid, LTT_F_TGID);
LTT_FILTER_ATTR(filter_tid, LTT_F_TID);
LTT_FILTER_ATTR(filter_comm, LTT_F_COMM);
LTT_FILTER_ATTR(filter_cgroup_id, LTT_F_CGROUP);

/*
 * probes: one line per kernel tracepoint the tracker uses, "NAME 0|1" (1: our probe is
 * registered on it), so a test can see that a disabled tracker costs nothing.
 */
static ssize_t probes_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < ltt_probes_cur_n; i++)
		len += sysfs_emit_at(buf, len, "%s %d\n", ltt_probes_cur[i].name,
				     READ_ONCE(ltt_probes_cur[i].registered));
	return len;
}

static struct kobj_attribute ltt_probes_attr = __ATTR_RO(probes);

static struct attribute *ltt_filter_attrs[] = {
	&ltt_probes_attr.attr,
	&ltt_filter_tgid_attr.attr,
	&ltt_filter_tid_attr.attr,
	&ltt_filter_comm_attr.attr,
	&ltt_filter_cgroup_id_attr.attr,
	NULL,
};

static const struct attribute_group ltt_filter_group = {
	.attrs = ltt_filter_attrs,
};

int ltt_filter_add(struct latency_tracker *t, struct ltt_filter *f)
{
	mutex_init(&f->lock);
	RCU_INIT_POINTER(f->conf, NULL);
	ltt_filter_cur = f;
	return sysfs_create_group(latency_tracker_kobj(t), &ltt_filter_group);
}

/*
 * The tracker's "enabled" file outlives the filter's files, so its probes may have been
 * registered again since it was disabled: like a write that replaces the filter, this
 * frees it only after a grace period (the probes read it under rcu_read_lock()).
 */
void ltt_filter_del(struct latency_tracker *t, struct ltt_filter *f)
{
	struct ltt_filter_conf *old;

	/* Waits for the filter's writers: nothing can store a filter after this. */
	sysfs_remove_group(latency_tracker_kobj(t), &ltt_filter_group);
	mutex_lock(&f->lock);
	old = rcu_replace_pointer(f->conf, NULL, lockdep_is_held(&f->lock));
	mutex_unlock(&f->lock);
	if (old) {
		synchronize_rcu();
		kfree(old);
	}
}

unsigned int ltt_stack_of_blocked(struct task_struct *task, unsigned long *store,
				  unsigned int size)
{
	unsigned int n = 0;
#if defined(CONFIG_X86) && (defined(CONFIG_UNWINDER_ORC) || defined(CONFIG_UNWINDER_FRAME_POINTER))
	struct unwind_state state;
	unsigned long addr;

	/* arch_stack_walk() is not exported, its unwinder is (x86: unwind_*). */
	for (unwind_start(&state, task, NULL, NULL); !unwind_done(&state) && n < size;
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		store[n++] = addr;
	}
#endif
	return n;
}
