// SPDX-License-Identifier: GPL-2.0-only
/*
 * The eBPF peer of the syscalls tracker (bench-ebpf-syscalls): what bcc's and bpftrace's
 * syscall latency tools do. Entry time and id in a hash map keyed by tid at sys_enter; at
 * sys_exit the entry is taken back and, past the threshold, a record goes to a ring buffer.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "syscall-peer.h"

/* Set by the loader before load (.rodata): the verifier then prunes the record path. */
const volatile __u64 threshold_ns = ~0ULL;

struct start {
	__u64 ts;
	__s64 id;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

SEC("raw_tracepoint/sys_enter")
int peer_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct start s = {.ts = bpf_ktime_get_ns(), .id = (__s64)ctx->args[1]};

	bpf_map_update_elem(&starts, &tid, &s, BPF_ANY);
	return 0;
}

SEC("raw_tracepoint/sys_exit")
int peer_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tid = (__u32)pid_tgid;
	struct start *s = bpf_map_lookup_elem(&starts, &tid);
	struct peer_event *e;
	__u64 delay;

	if (!s)
		return 0;
	delay = now - s->ts;
	if (delay >= threshold_ns) {
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (e) {
			e->tid = tid;
			e->pid = (__u32)(pid_tgid >> 32);
			e->id = s->id;
			e->delay_ns = delay;
			e->ret = (__s64)ctx->args[1];
			bpf_ringbuf_submit(e, 0);
		}
	}
	bpf_map_delete_elem(&starts, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
