// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel modules through libkmod: the tracker module and the LTTng probe module. Only
 * modules that were not loaded before are loaded (and reported as ours), so that the
 * caller unloads at exit only what it loaded. What it loaded is also kept in a state file,
 * so that an instance started after one was killed can unload them in its place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libkmod.h>

#include "fsutil.h"
#include "kernel.h"
#include "log.h"
#include "proto.h"

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

bool modload_is_loaded(struct modload *ml, const char *name)
{
	struct kmod_module *mod = NULL;
	int state;

	if (kmod_module_new_from_name(ml->ctx, name, &mod) < 0)
		return false;
	state = kmod_module_get_initstate(mod);
	kmod_module_unref(mod);
	return state == KMOD_MODULE_LIVE || state == KMOD_MODULE_COMING;
}

/*
 * The state file: {"pid": N, "modules": [names in load order]}. Written whole through a
 * temporary file and a rename, so that a reader sees the old list or the new one.
 */
int modload_state_write(const char *path, pid_t pid, char *const *names, size_t n)
{
	struct json_object *o = json_object_new_object(), *list = json_object_new_array();
	char tmp[PATH_MAX];
	const char *text;
	int r;

	if (!o || !list) {
		json_object_put(o);
		json_object_put(list);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		json_object_array_add(list, json_object_new_string(names[i]));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "modules", list);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	r = text ? file_replace(path, tmp, text, strlen(text), true, 0644, FILE_DURABLE) : -ENOMEM;
	json_object_put(o);
	return r;
}

int modload_state_read(const char *path, pid_t *pid, char ***names, size_t *n)
{
	struct json_object *o, *p, *list;
	size_t len;

	*names = NULL;
	*n = 0;
	if (access(path, F_OK) < 0)
		return -errno;
	o = json_object_from_file(path);
	if (!o || !json_object_object_get_ex(o, "pid", &p) ||
	    !json_object_is_type(p, json_type_int) || json_object_get_int(p) <= 0 ||
	    !json_object_object_get_ex(o, "modules", &list) ||
	    !json_object_is_type(list, json_type_array)) {
		json_object_put(o);
		return -EBADMSG;
	}
	*pid = json_object_get_int(p);
	len = json_object_array_length(list);
	*names = calloc(len + 1, sizeof(**names));
	for (size_t i = 0; *names && i < len; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(list, i));

		if (s && *s && !((*names)[*n] = strdup(s)))
			break;
		if (s && *s)
			(*n)++;
	}
	json_object_put(o);
	return *names ? 0 : -ENOMEM;
}
