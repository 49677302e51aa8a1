// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel modules through libkmod: the tracker module and the LTTng probe module. Only
 * modules that were not loaded before are loaded (and reported as ours), so that the
 * caller unloads at exit only what it loaded.
 */
#include <errno.h>
#include <stdlib.h>

#include <libkmod.h>

#include "latencyd.h"

struct modload {
	struct kmod_ctx *ctx;
};

int modload_new(struct modload **ret)
{
	struct modload *ml = calloc(1, sizeof(*ml));

	if (!ml)
		return -ENOMEM;
	ml->ctx = kmod_new(NULL, NULL);
	if (!ml->ctx) {
		free(ml);
		return -ENOMEM;
	}
	kmod_load_resources(ml->ctx);
	*ret = ml;
	return 0;
}

void modload_free(struct modload *ml)
{
	if (!ml)
		return;
	kmod_unref(ml->ctx);
	free(ml);
}

int modload_load(struct modload *ml, const char *name, const char *params, bool *loaded)
{
	struct kmod_list *list = NULL, *it;
	int r, found = 0;

	*loaded = false;
	r = kmod_module_new_from_lookup(ml->ctx, name, &list);
	if (r < 0)
		return r;
	if (!list)
		return -ENOENT;
	kmod_list_foreach(it, list)
	{
		struct kmod_module *mod = kmod_module_get_module(it);
		int state = kmod_module_get_initstate(mod);

		found = 1;
		if (state == KMOD_MODULE_LIVE || state == KMOD_MODULE_BUILTIN ||
		    state == KMOD_MODULE_COMING) {
			kmod_module_unref(mod);
			r = 0;
			break;
		}
		r = kmod_module_probe_insert_module(mod, 0, params && *params ? params : NULL, NULL,
						    NULL, NULL);
		kmod_module_unref(mod);
		if (r == 0)
			*loaded = true;
		break;
	}
	kmod_module_unref_list(list);
	return found ? (r > 0 ? -EPERM : r) : -ENOENT;
}

int modload_unload(struct modload *ml, const char *name)
{
	struct kmod_module *mod = NULL;
	int r;

	r = kmod_module_new_from_name(ml->ctx, name, &mod);
	if (r < 0)
		return r;
	r = kmod_module_remove_module(mod, 0);
	kmod_module_unref(mod);
	return r;
}
