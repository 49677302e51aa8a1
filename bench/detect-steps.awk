# bench/detect-steps.awk: the steps from each alert to the record starting in
# lttng-sessiond, read from the "steps" session of bench/vm-bench.sh's detect part.
#
#   babeltrace2 --clock-cycles STEPS_TRACE | awk -f bench/detect-steps.awk -v tsv=detect.tsv
#
# detect.tsv's k-th line (condition, path) says who recorded the k-th alert of the trace.
# Prints one line per alert: "COND PATH STEP=NS ..." with each step's time after the
# alert's end_ns (CLOCK_MONOTONIC, the kernel trace clock's cycles), "-" for a step not
# seen. Each step is the first matching event after the step before it, before the next
# alert, so a step that is not there leaves the rest unknown rather than matching an
# unrelated event later on.
#
# latencyd: emitted (the alert event), waiter_woken, waiter_on_cpu, connect (liblttng-ctl
#   connects to sessiond), client_woken (sessiond's client thread), client_on_cpu,
#   command_read (its recvmsg of the command returns), runas_woken (sessiond asks its
#   run-as process for the output directory: the record has started), mkdir.
# trigger: emitted, notification_woken (sessiond's notification thread, from the event
#   notifier), executor_woken (its action executor), executor_on_cpu, runas_woken, mkdir.
# step(PATH, NAME, EVENT, FIELD, VALUE): PATH's next step is the first EVENT whose FIELD
# (procname: the thread the event is from) is VALUE.
function step(p, name, event, key, value) {
	steps[p, ++nsteps[p]] = name
	ev_of[name] = event
	key_of[name] = key
	val_of[name] = value
}
BEGIN {
	nl = 0
	while ((getline line < tsv) > 0) {
		split(line, f, "\t")
		cond[++nl] = f[1]
		path[nl] = f[2]
	}
	steps["latencyd", nsteps["latencyd"] = 1] = "emitted"
	step("latencyd", "waiter_woken", "sched_waking", "comm", "latencyd-waiter")
	step("latencyd", "waiter_on_cpu", "sched_switch", "next_comm", "latencyd-waiter")
	step("latencyd", "connect", "syscall_entry_connect", "procname", "latencyd-waiter")
	step("latencyd", "client_woken", "sched_waking", "comm", "Client manageme")
	step("latencyd", "client_on_cpu", "sched_switch", "next_comm", "Client manageme")
	step("latencyd", "command_read", "syscall_exit_recvmsg", "procname", "Client manageme")
	step("latencyd", "runas_woken", "sched_waking", "comm", "lttng-runas")
	step("latencyd", "mkdir", "syscall_entry_mkdirat", "procname", "lttng-runas")
	steps["trigger", nsteps["trigger"] = 1] = "emitted"
	step("trigger", "notification_woken", "sched_waking", "comm", "Notification")
	step("trigger", "executor_woken", "sched_waking", "comm", "Action Executor")
	step("trigger", "executor_on_cpu", "sched_switch", "next_comm", "Action Executor")
	step("trigger", "runas_woken", "sched_waking", "comm", "lttng-runas")
	step("trigger", "mkdir", "syscall_entry_mkdirat", "procname", "lttng-runas")
	k = 0
}

function ts(s) { s = substr($0, 2, 20); return s + 0 }
function field(name,   s) {
	s = $0
	if (!sub(".*[{ ]" name " = ", "", s))
		return ""
	sub(/[,}].*/, "", s)
	gsub(/"/, "", s)
	return s
}
function flush(   i, out, name) {
	if (!k)
		return
	if (k > nl) {
		printf "detect-steps: alert %d has no line in %s\n", k, tsv > "/dev/stderr"
		return
	}
	out = cond[k] " " path[k]
	for (i = 1; i <= nsteps[path[k]]; i++) {
		name = steps[path[k], i]
		out = out " " name "=" (name in at ? at[name] - end : "-")
	}
	print out
}
# matches(STEP): whether this line is that step's event.
function matches(name,   ev) {
	ev = $0
	sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", ev)
	sub(/:.*/, "", ev)
	return ev == ev_of[name] && field(key_of[name]) == val_of[name]
}

/ latency_tracker_alert: / {
	flush()
	k++
	delete at
	end = field("end_ns") + 0
	at["emitted"] = ts()
	next_step = 2
	next
}

k && k <= nl && next_step <= nsteps[path[k]] && matches(steps[path[k], next_step]) {
	at[steps[path[k], next_step++]] = ts()
}

END { flush() }
