# Sourced by host-side tests (tests/host/test-metrics.sh, tests/vm/metrics-prometheus):
# Debian's node_exporter serving the .prom files of one directory through its textfile
# collector, and Debian's prometheus scraping it every second, both on 127.0.0.1 only.
# Needs PROM (tools/fetch-prometheus's bin directory), T (a scratch directory), fail and
# wait_for.

# prom_start DIR JOB: starts both, scrape job JOB; sets NE_PORT, NE_PID, PR_PORT, PR_PID
# (prom_stop kills them) once node_exporter answers.
prom_start() {
	NE_PORT=$((20000 + RANDOM % 30000))
	PR_PORT=$((20000 + RANDOM % 30000))
	"$PROM/prometheus-node-exporter" --web.listen-address=127.0.0.1:$NE_PORT \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$1" >"$T/node_exporter.log" 2>&1 &
	NE_PID=$!
	wait_for 100 curl -sf -o /dev/null "http://127.0.0.1:$NE_PORT/metrics" ||
		fail "node_exporter does not answer: $(cat "$T/node_exporter.log")"
	cat >"$T/prometheus.yml" <<YML
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: $2
    static_configs: [ { targets: [ "127.0.0.1:$NE_PORT" ] } ]
YML
	"$PROM/prometheus" --config.file="$T/prometheus.yml" \
		--web.listen-address=127.0.0.1:$PR_PORT --storage.tsdb.path="$T/tsdb" \
		>"$T/prometheus.log" 2>&1 &
	PR_PID=$!
}

prom_stop() {
	[ -n "${NE_PID:-}" ] && kill "$NE_PID" 2>/dev/null
	[ -n "${PR_PID:-}" ] && kill "$PR_PID" 2>/dev/null
	NE_PID= PR_PID=
}

# prom_query QUERY: prometheus's answer in $T/query; true when it holds one result.
prom_query() {
	curl -sf "http://127.0.0.1:$PR_PORT/api/v1/query" --data-urlencode "query=$1" \
		>"$T/query" && jq -e '.data.result | length == 1' "$T/query" >/dev/null
}
