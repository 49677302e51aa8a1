// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel stacks of a snapshot's causes, named (ksyms.c) when the snapshot enters the
 * catalog: the trace holds only raw addresses, which mean nothing after a reboot or an
 * rmmod. Addresses themselves are kept only where kernel.kptr_restrict allows it: the
 * catalog is readable by read_group, who may not see kernel addresses otherwise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "log.h"
#include "manager.h"

static const char *stack_kind(uint32_t flags)
{
	if (flags & LATENCY_TRACKER_REC_F_STACK_TASK)
		return PROTO_STACK_TASK;
	if (flags & LATENCY_TRACKER_REC_F_STACK_WAKER)
		return PROTO_STACK_WAKER;
	if (flags & LATENCY_TRACKER_REC_F_STACK_IN)
		return PROTO_STACK_IN;
	return PROTO_STACK_ALERT;
}

static uint32_t stack_depth(const struct cause *c)
{
	if (c->kind != CAUSE_ALERT)
		return 0;
	return c->alert.nr_stack < LATENCY_TRACKER_STACK_DEPTH ? c->alert.nr_stack
							       : LATENCY_TRACKER_STACK_DEPTH;
}

/* The stack of alert A, DEPTH frames named in SYMS (NULL: no memory). */
static struct catalog_stack *stack_entry(const struct latency_tracker_record *a, uint32_t depth,
					 const struct ksym *syms, bool show_address,
					 const char *error)
{
	struct catalog_stack *o = calloc(1, sizeof(*o));
	char buf[KSYMS_NAME_MAX + KSYMS_MODULE_MAX + 48];
	int r = 0;

	if (!o)
		return NULL;
	o->kind = catalog_strdup(stack_kind(a->flags), &r);
	o->error = catalog_strdup(error, &r);
	o->frames = calloc(depth, sizeof(*o->frames));
	o->addresses = show_address ? calloc(depth, sizeof(*o->addresses)) : NULL;
	if (!o->frames || (show_address && !o->addresses))
		r = -ENOMEM;
	for (uint32_t i = 0; r == 0 && i < depth; i++) {
		ksym_text(&syms[i], false, buf, sizeof(buf));
		o->frames[o->n_frames++] = catalog_strdup(buf, &r);
		if (o->addresses) {
			snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)a->stack[i]);
			o->addresses[o->n_addresses++] = catalog_strdup(buf, &r);
		}
	}
	if (r < 0) {
		catalog_stack_free(o);
		return NULL;
	}
	return o;
}

void manager_stacks_add(struct catalog_entry *e, const struct cause *c, size_t n,
			struct ksyms_cache *ksyms, const char *kallsyms, const char *kptr_restrict)
{
	size_t total = 0, at = 0;
	uint64_t *addr;
	struct ksym *syms;
	const char *error = NULL;
	char why[128];
	int restrict_level, r;

	if (n > e->n_causes)
		n = e->n_causes;
	for (size_t i = 0; i < n; i++)
		total += stack_depth(&c[i]);
	if (!total)
		return;
	restrict_level = ksyms_kptr_restrict(kptr_restrict);
	addr = calloc(total, sizeof(*addr));
	syms = calloc(total, sizeof(*syms));
	if (!addr || !syms) {
		free(addr);
		free(syms);
		return;
	}
	for (size_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < stack_depth(&c[i]); j++)
			addr[at++] = c[i].alert.stack[j];
	r = ksyms ? ksyms_cache_resolve(ksyms, addr, total, syms) : -ENOMEM;
	if (r < 0) {
		snprintf(why, sizeof(why), "%s: %s", kallsyms,
			 r == -EPERM ? "no addresses shown (kernel.kptr_restrict, no CAP_SYSLOG)"
				     : strerror(-r));
		error = why;
		log_warnx("kernel stacks left unnamed: %s", why);
		for (size_t i = 0; i < total; i++)
			syms[i] = (struct ksym){.address = addr[i]};
	}
	at = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t depth = stack_depth(&c[i]);

		if (!depth)
			continue;
		catalog_stack_free(e->causes[i].stack);
		e->causes[i].stack =
			stack_entry(&c[i].alert, depth, &syms[at], restrict_level == 0, error);
		at += depth;
	}
	free(addr);
	free(syms);
}
