# Helpers for the analyze-*.sh scenarios, in the guest, sourced after guest-lib.sh.
# A kernel snapshot session with what the analysis uses, then latencyctl analyze --json on
# the snapshot, flattened by lt-analyze-flat into "path=value" lines for grep and sed.

AN_EVENTS=latency_tracker_alert,sched_switch,sched_waking,sched_wakeup_new,sched_process_fork
AN_EVENTS=$AN_EVENTS,sched_process_exit,irq_handler_entry,irq_handler_exit,irq_softirq_entry
AN_EVENTS=$AN_EVENTS,irq_softirq_exit,irq_softirq_raise,timer_hrtimer_expire_entry
AN_EVENTS=$AN_EVENTS,timer_hrtimer_expire_exit,block_rq_issue,block_rq_complete
# The disks' names, from the statedump at session start (the analysis says "vdb (254:16)").
AN_EVENTS=$AN_EVENTS,lttng_statedump_block_device

an_start() {
	lttng list >/dev/null 2>&1 || start_sessiond
	rm -rf /tmp/snap
	lttng create lt --snapshot --output=/tmp/snap >/dev/null || fail "lttng create"
	lttng enable-channel -k --overwrite --subbuf-size=512k --num-subbuf=4 chan >/dev/null ||
		fail "lttng enable-channel"
	lttng enable-event -k -c chan "$AN_EVENTS" >/dev/null || fail "lttng enable-event"
	lttng enable-event -k -c chan --syscall -a >/dev/null || fail "lttng enable-event --syscall"
	lttng start >/dev/null || fail "lttng start"
}

# The streams decoded in one thread, in two and in four (each shard its own graph, then
# merged in the muxer's order; four shards of fewer stream files cut some between packets):
# the same analysis, JSON and text, byte for byte. Two shards only from 512 KiB of stream
# files (below, one thread reads them all): said, or failed when the scenario sets
# AN_THREADS_REQUIRE (it made a snapshot big enough).
an_threads_check() {
	local bytes
	bytes=$(find /tmp/snap -type f ! -name metadata | grep -v /index/ | xargs cat | wc -c)
	for t in 1 2 4; do
		latencyctl --json analyze --threads $t /tmp/snap >/tmp/an-t$t.json ||
			fail "latencyctl --json analyze --threads $t"
		latencyctl analyze --threads $t /tmp/snap >/tmp/an-t$t.txt ||
			fail "latencyctl analyze --threads $t"
	done
	cmp /tmp/an-t1.json /tmp/an-t2.json || fail "--threads 1 and 2: the JSON differs"
	cmp /tmp/an-t1.txt /tmp/an-t2.txt || fail "--threads 1 and 2: the text differs"
	# Four shards of two or three CPUs' streams: files cut between packets (from 2 MiB).
	cmp /tmp/an-t1.json /tmp/an-t4.json || fail "--threads 1 and 4: the JSON differs"
	cmp /tmp/an-t1.txt /tmp/an-t4.txt || fail "--threads 1 and 4: the text differs"
	cmp /tmp/an-t1.json /tmp/an.json || fail "--threads 1 and the default: the JSON differs"
	if [ "$bytes" -lt 524288 ]; then
		[ -z "${AN_THREADS_REQUIRE:-}" ] || fail "$bytes bytes of stream files: one thread read them"
		echo "note: $bytes bytes of stream files, read by one thread"
	fi
	pass "--threads 1, 2 and 4 give the same analysis ($bytes bytes of stream files)"
}

# Records the snapshot, analyses it (text shown, JSON flattened to /tmp/an.flat); the
# snapshot and the analysis are copied to $VM_OUT/$1.
an_snapshot() {
	lttng snapshot record >/dev/null || fail "lttng snapshot record"
	lttng destroy lt >/dev/null
	latencyctl analyze --limit 5 /tmp/snap >/tmp/an.txt || fail "latencyctl analyze"
	cat /tmp/an.txt
	latencyctl --json analyze /tmp/snap >/tmp/an.json || fail "latencyctl --json analyze"
	an_threads_check
	lt-analyze-flat /tmp/an.json >/tmp/an.flat || fail "the analysis is not JSON"
	mkdir -p "$VM_OUT/$1"
	cp -r /tmp/snap /tmp/an.json "$VM_OUT/$1/"
	[ "$(sed -n 's/^partial=//p' /tmp/an.flat)" = false ] || fail "partial analysis"
}

# an_alert SEQ: AL is the "alerts.N" of the analysed alert with that sequence number.
an_alert() {
	AL=$(sed -n "s/^\(alerts\.[0-9]*\)\.seq=$1\$/\1/p" /tmp/an.flat | head -n 1)
	[ -n "$AL" ] || fail "alert seq $1 not analysed: $(grep '^alerts\.[0-9]*\.seq=' /tmp/an.flat)"
}

# an_get KEY: the value of KEY under $AL.
an_get() { sed -n "s/^$AL\.$1=//p" /tmp/an.flat | head -n 1; }

# an_link DEPTH TID STATE: L is "chain.I" of the longest link of the chain at DEPTH for TID
# whose state begins with STATE; fails if there is none.
an_link() {
	L=
	best=-1
	for i in $(sed -n "s/^$AL\.chain\.\([0-9]*\)\.depth=$1\$/\1/p" /tmp/an.flat); do
		[ "$(an_get "chain.$i.tid")" = "$2" ] || continue
		case $(an_get "chain.$i.state") in "$3"*) ;; *) continue ;; esac
		d=$(an_get "chain.$i.duration_ns")
		[ "$d" -gt "$best" ] && best=$d && L=chain.$i
	done
	[ -n "$L" ] || fail "no $3 link at depth $1 for tid $2 in: $(grep "^$AL\.chain\.[0-9]*\.\(depth\|tid\|state\)=" /tmp/an.flat | tr '\n' ' ')"
}

# an_lami_check: the LAMI 1.0 phases of latencyctl analyze on /tmp/snap, against the
# specification's required properties: version line; metadata mi-version and table classes
# with known column classes; every result table with a time range, a known class and rows
# whose data objects carry the properties their class requires; the alerts and critical
# path tables there.
an_lami_check() {
	[ "$(latencyctl analyze --mi-version)" = 1.0 ] || fail "--mi-version"
	latencyctl analyze --metadata >/tmp/lami-meta.json || fail "--metadata"
	lt-analyze-flat /tmp/lami-meta.json >/tmp/lami-meta.flat || fail "--metadata is not JSON"
	latencyctl analyze --test-compatibility /tmp/snap || fail "--test-compatibility"
	latencyctl analyze --lami /tmp/snap >/tmp/lami.json || fail "--lami"
	lt-analyze-flat /tmp/lami.json >/tmp/lami.flat || fail "--lami is not JSON"
	err=$(awk -F= '
	FNR == NR {
		if ($1 == "mi-version.major") major = $2
		if ($1 == "mi-version.minor") minor = $2
		if ($1 ~ /^table-classes\.[^.]*\.column-descriptions\.[0-9]*\.class$/) {
			split($1, p, "."); n = p[4] + 0
			known[p[2]] = 1; ncols[p[2]] = n + 1 > ncols[p[2]] ? n + 1 : ncols[p[2]]
			if ($2 !~ /^(string|number|bool|ratio|timestamp|time-range|duration|size|bitrate|syscall|process|path|fd|irq|cpu|disk|part|netif|mixed)$/)
				print "column class " $2
		}
		next
	}
	{
		split($1, p, "."); t = p[2]
		if (p[1] != "results") { print "not a results object: " $1; next }
		tables[t] = 1
		if ($1 ~ /\.time-range\.class$/ && $2 == "time-range") range[t]++
		if ($1 ~ /\.time-range\.(begin|end)\.value$/ && $2 ~ /^[0-9]+$/) range[t]++
		if ($1 ~ /^results\.[0-9]*\.class$/) cls[t] = $2
		if ($1 ~ /^results\.[0-9]*\.class\.inherit$/) cls[t] = $2
		if (p[3] == "data") {
			rows[t] = 1; cell = t "." p[4] "." p[5]
			cells[t "." p[4]] = p[5] + 1 > cells[t "." p[4]] ? p[5] + 1 : cells[t "." p[4]]
			if (p[6] == "class") { oc[cell] = $2 }
			else if (p[6] != "") { prop[cell "." p[6]] = 1 }
		}
	}
	END {
		if (major != 1 || minor != 0) print "mi-version " major "." minor
		for (t in tables) {
			if (range[t] != 3) print "table " t ": time-range"
			if (!(cls[t] in known)) print "table " t ": unknown class " cls[t]
			if (!rows[t]) print "table " t ": no rows"
			seen[cls[t]] = 1
		}
		for (r in cells) { split(r, q, "."); if (cells[r] != ncols[cls[q[1]]]) print "row " r ": " cells[r] " cells" }
		for (c in oc) {
			k = oc[c]
			if (k ~ /^(number|duration|timestamp|ratio|size)$/ && !((c ".value") in prop)) print c ": " k " without value"
			if (k ~ /^(syscall|disk)$/ && !((c ".name") in prop)) print c ": " k " without name"
			if (k == "irq" && !((c ".nr") in prop)) print c ": irq without nr"
			if (k == "cpu" && !((c ".id") in prop)) print c ": cpu without id"
			if (k !~ /^(unknown|number|ratio|timestamp|time-range|duration|size|bitrate|syscall|process|path|fd|irq|cpu|disk|part|netif)$/) print c ": class " k
		}
		if (!seen["alerts"]) print "no alerts table"
		if (!seen["critical-path"]) print "no critical-path table"
		if (!seen["syscall-latency"]) print "no syscall-latency table"
	}' /tmp/lami-meta.flat /tmp/lami.flat)
	[ -z "$err" ] || fail "LAMI: $err"
	cp /tmp/lami.json "$VM_OUT/" 2>/dev/null
	pass "LAMI 1.0 output has the specification's required properties ($(grep -c '^results\.[0-9]*\.class[=.]' /tmp/lami.flat) tables)"
}
