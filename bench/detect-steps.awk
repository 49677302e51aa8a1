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
BEGIN {
	nl = 0
	while ((getline line < tsv) > 0) {
		split(line, f, "\t")
		cond[++nl] = f[1]
		path[nl] = f[2]
	}
	split("emitted waiter_woken waiter_on_cpu connect client_woken client_on_cpu command_read runas_woken mkdir", L, " ")
	split("emitted notification_woken executor_woken executor_on_cpu runas_woken mkdir", T, " ")
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
function flush(   i, out, n, names) {
	if (!k)
		return
	if (k > nl) {
		printf "detect-steps: alert %d has no line in %s\n", k, tsv > "/dev/stderr"
		return
	}
	n = path[k] == "trigger" ? split("emitted notification_woken executor_woken executor_on_cpu runas_woken mkdir", names, " ") : split("emitted waiter_woken waiter_on_cpu connect client_woken client_on_cpu command_read runas_woken mkdir", names, " ")
	out = cond[k] " " path[k]
	for (i = 1; i <= n; i++)
		out = out " " names[i] "=" (names[i] in at ? at[names[i]] - end : "-")
	print out
}
# matches(STEP): whether this line is that step's event.
function matches(step,   ev, proc) {
	ev = $0
	sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", ev)
	sub(/:.*/, "", ev)
	proc = field("procname")
	if (step == "waiter_woken")
		return ev == "sched_waking" && field("comm") == "latencyd-waiter"
	if (step == "waiter_on_cpu")
		return ev == "sched_switch" && field("next_comm") == "latencyd-waiter"
	if (step == "connect")
		return ev == "syscall_entry_connect" && proc == "latencyd-waiter"
	if (step == "client_woken")
		return ev == "sched_waking" && field("comm") == "Client manageme"
	if (step == "client_on_cpu")
		return ev == "sched_switch" && field("next_comm") == "Client manageme"
	if (step == "command_read")
		return ev == "syscall_exit_recvmsg" && proc == "Client manageme"
	if (step == "runas_woken")
		return ev == "sched_waking" && field("comm") == "lttng-runas"
	if (step == "mkdir")
		return ev == "syscall_entry_mkdirat" && proc == "lttng-runas"
	if (step == "notification_woken")
		return ev == "sched_waking" && field("comm") == "Notification"
	if (step == "executor_woken")
		return ev == "sched_waking" && field("comm") == "Action Executor"
	if (step == "executor_on_cpu")
		return ev == "sched_switch" && field("next_comm") == "Action Executor"
	return 0
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

k && k <= nl {
	if (path[k] == "trigger") {
		if (next_step <= 6 && matches(T[next_step]))
			at[T[next_step++]] = ts()
	} else if (next_step <= 9 && matches(L[next_step])) {
		at[L[next_step++]] = ts()
	}
}

END { flush() }
