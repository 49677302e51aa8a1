// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-ebpf-syscalls [--threshold-us N] [--ready-file PATH] [--duration-s N]: the eBPF peer
 * of the syscalls tracker for bench/vm-bench.sh's overhead part. Loads syscall-peer.bpf.c
 * (embedded at build time), attaches it to sys_enter/sys_exit, reads its ring buffer until
 * SIGTERM/SIGINT or the duration, then prints "events N max_delay_ns M" and one line per
 * record ("tid T id I delay_ns D", at most PRINT_MAX). Static, for the VM's initramfs.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "syscall-peer.h"
#include "syscall-peer.bpf.inc" /* xxd -i of the BPF object */

#define PRINT_MAX 100

static volatile sig_atomic_t stop;
static uint64_t n_events, max_delay;
static struct peer_event printed[PRINT_MAX];

static void on_signal(int sig)
{
	stop = 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench-ebpf-syscalls [--threshold-us N] [--ready-file PATH] "
			"[--duration-s N]\n");
	return 2;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* libbpf's info messages would bury our own; its warnings say why a step failed. */
static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct peer_event *e = data;

	if (size < sizeof(*e))
		return 0;
	if (n_events < PRINT_MAX)
		printed[n_events] = *e;
	n_events++;
	if (e->delay_ns > max_delay)
		max_delay = e->delay_ns;
	return 0;
}

/* threshold_ns's offset in .rodata, from the object's BTF: string constants may come first. */
static int set_threshold(struct bpf_object *obj, uint64_t ns)
{
	struct bpf_map *rodata = bpf_object__find_map_by_name(obj, ".rodata");
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	const void *init;
	size_t size;
	int id, rc = -1;
	char *data;

	if (!rodata || !btf || (id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC)) < 0)
		return -1;
	init = bpf_map__initial_value(rodata, &size);
	sec = btf__type_by_id(btf, id);
	if (!init || !sec || !(data = malloc(size)))
		return -1;
	/* A copy: libbpf 1.1 hands the initial value out as const. */
	memcpy(data, init, size);
	vs = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (var && !strcmp(btf__name_by_offset(btf, var->name_off), "threshold_ns") &&
		    vs->size == sizeof(ns) && vs->offset + sizeof(ns) <= size) {
			memcpy(data + vs->offset, &ns, sizeof(ns));
			rc = bpf_map__set_initial_value(rodata, data, size) ? -1 : 0;
			break;
		}
	}
	free(data);
	return rc;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static const char *const progs[] = {"peer_sys_enter", "peer_sys_exit"};
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "syscall_peer");
	uint64_t threshold_us = 0, duration_s = 0, end = 0;
	const char *ready_file = NULL;
	struct bpf_link *links[2] = {NULL, NULL};
	struct ring_buffer *rb = NULL;
	struct bpf_object *obj;
	struct sigaction sa;
	int rc = 1, err;

	for (int i = 1; i < argc; i += 2) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "--threshold-us")) {
			if (parse_u64(val, UINT64_MAX / 1000, &threshold_us)) {
				fprintf(stderr,
					"bench-ebpf-syscalls: --threshold-us: not a number of "
					"microseconds: %s\n",
					val ? val : "(missing)");
				return 2;
			}
		} else if (!strcmp(opt, "--duration-s")) {
			if (parse_u64(val, UINT32_MAX, &duration_s)) {
				fprintf(stderr,
					"bench-ebpf-syscalls: --duration-s: not a number of "
					"seconds: %s\n",
					val ? val : "(missing)");
				return 2;
			}
		} else if (!strcmp(opt, "--ready-file")) {
			if (!val || !*val) {
				fprintf(stderr, "bench-ebpf-syscalls: --ready-file: no path\n");
				return 2;
			}
			ready_file = val;
		} else {
			return usage();
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the poll returns at once */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	libbpf_set_print(libbpf_log);

	obj = bpf_object__open_mem(syscall_peer_bpf_o, syscall_peer_bpf_o_len, &opts);
	if (!obj) {
		fprintf(stderr, "bench-ebpf-syscalls: open: %s\n", strerror(errno));
		return 1;
	}
	if (set_threshold(obj, threshold_us * 1000)) {
		fprintf(stderr,
			"bench-ebpf-syscalls: open: no threshold_ns in the object's .rodata\n");
		goto out;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr,
			"bench-ebpf-syscalls: load: %s (needs root, or CAP_BPF and CAP_PERFMON)\n",
			strerror(-err));
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		struct bpf_program *prog = bpf_object__find_program_by_name(obj, progs[i]);

		links[i] = prog ? bpf_program__attach(prog) : NULL;
		if (!links[i]) {
			fprintf(stderr, "bench-ebpf-syscalls: attach %s: %s\n", progs[i],
				prog ? strerror(errno) : "no such program");
			goto out;
		}
	}
	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "events")), on_event,
			      NULL, NULL);
	if (!rb) {
		fprintf(stderr, "bench-ebpf-syscalls: ring buffer: %s\n", strerror(errno));
		goto out;
	}

	if (ready_file) {
		FILE *f = fopen(ready_file, "w");

		if (!f || fputs("ready\n", f) == EOF || fclose(f)) {
			fprintf(stderr, "bench-ebpf-syscalls: %s: %s\n", ready_file,
				strerror(errno));
			goto out;
		}
	} else {
		printf("ready\n");
		fflush(stdout);
	}

	if (duration_s)
		end = now_ns() + duration_s * 1000000000u;
	while (!stop && (!end || now_ns() < end)) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "bench-ebpf-syscalls: poll: %s\n", strerror(-err));
			goto out;
		}
	}
	ring_buffer__consume(rb);

	printf("events %llu max_delay_ns %llu\n", (unsigned long long)n_events,
	       (unsigned long long)max_delay);
	for (uint64_t i = 0; i < n_events && i < PRINT_MAX; i++)
		printf("tid %u id %lld delay_ns %llu\n", printed[i].tid, (long long)printed[i].id,
		       (unsigned long long)printed[i].delay_ns);
	rc = fflush(stdout) ? 1 : 0;
out:
	ring_buffer__free(rb);
	for (int i = 0; i < 2; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	return rc;
}
