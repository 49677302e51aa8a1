#!/bin/bash
# Every duration the documentation shows is taken where it is shown: the man pages
# (man/*.[1-8]), latencyctl's help and each command's, latencyd's, and the sample
# etc/latencyd.conf. Every duration-looking word ("50ms", "1.5h") goes through the one
# grammar (duration-check); those shown for set-threshold and set-timeout through latencyctl
# itself, range included, and those shown for --since ("1d ago" and dates too) likewise;
# those of a latencyd.conf setting (its default, range and examples, in latencyd.conf(5) and
# in the sample's comments) through latencyd --check-config as that setting; and each example
# file of latencyd.conf(5) whole. Fails when one is refused, and when an example it must find
# is not found: an extraction that finds nothing must not pass.
set -u
SRC=${1:?usage: $0 SRCDIR LATENCYD LATENCYCTL DURATION_CHECK}
LATENCYD=${2:?} LATENCYCTL=${3:?} CHECK=${4:?}
export LC_ALL=C
T=$(mktemp -d /tmp/latencyd-doc.XXXXXX)
trap 'rm -rf "$T"' EXIT
NOSOCK=$T/none.sock # latencyctl exits 3 (no latencyd) with what it took, 2 with what it refused
failed=0
bad() {
	echo "FAIL: $*" >&2
	failed=1
}

# A man page as "SECTION<TAB>KEY<TAB>TEXT" lines: one per paragraph, one per example line
# (.EX); SECTION is the .SH or .SS it is under, KEY the first word of its .TP tag (kept over
# the .IP paragraphs that go on with the entry).
man_paras() {
	awk '
	function plain(s) {
		gsub(/\\f[BIRP]/, "", s); gsub(/\\\(dq|\\\(lq|\\\(rq/, "\"", s)
		gsub(/\\-/, "-", s); gsub(/\\\(mu/, "x", s); gsub(/\\&/, "", s)
		gsub(/\\ /, " ", s); gsub(/\\\(em/, " - ", s)
		return s
	}
	function flush() { if (para != "") print sec "\t" key "\t" para; para = "" }
	function add(s) {
		if (tag) { key = s; sub(/^[ \t]*/, "", key); sub(/[ \t].*/, "", key); tag = 0 }
		para = para (para == "" ? "" : " ") s
	}
	/^\.\\"/ { next }
	/^\.S[HS][ \t]/ { flush(); sec = $0; sub(/^\.S[HS][ \t]+/, "", sec); gsub(/"/, "", sec); key = ""; next }
	/^\.T[PQ]/ { flush(); tag = 1; key = ""; next }
	/^\.EX/ { flush(); ex = 1; next }
	/^\.EE/ { ex = 0; next }
	/^\.IP/ { flush(); next }
	/^\.(PP|P|LP|sp|br|RS|RE|in)([ \t]|$)/ { flush(); key = ""; next }
	/^\.(B|I|BR|RB|IR|RI|BI|IB|SM|SB)([ \t]|$)/ {
		s = $0; sub(/^\.[A-Z]+[ \t]*/, "", s); gsub(/"/, "", s); add(plain(s)); next
	}
	/^\./ { next }
	ex { print sec "\t" key "\t" plain($0); next }
	{ add(plain($0)) }
	END { flush() }' "$1"
}

# latencyctl --help as "Commands<TAB>COMMAND<TAB>TEXT": a command's lines together.
help_paras() {
	awk '/^Commands:/ { f = 1; next }
	f && /^  [a-z]/ { if (p != "") print "Commands\t" k "\t" p; k = $1; p = $0; next }
	f && /^    / { p = p " " $0; next }
	{ if (p != "") print "Commands\t" k "\t" p; p = ""; f = f && !/^$/; print "\t\t" $0 }
	END { if (p != "") print "Commands\t" k "\t" p }'
}

# The sample's settings that have a comment, "GROUP.KEY<TAB>VALUE # COMMENT" (the first
# setting of a line: those with a comment are alone on theirs).
sample_settings() {
	awk '{
		code = $0; com = ""
		if ((i = index(code, "#")) > 0) { com = substr(code, i + 1); code = substr(code, 1, i - 1) }
		if (com != "" && match(code, /^[ \t]*[a-z_]+ = [^;]*;/)) {
			k = code; sub(/^[ \t]*/, "", k); v = k; sub(/ = .*/, "", k)
			sub(/^[a-z_]+ = /, "", v); sub(/;.*/, "", v)
			p = ""; for (j = 1; j <= d; j++) p = p g[j] "."
			print p k "\t" v " # " com
		}
		s = code
		while (match(s, /[a-z_]+:[ \t]*\{|\}/)) {
			t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			if (t == "}") d--; else { sub(/:.*/, "", t); g[++d] = t }
		}
	}' "$1"
}

# The duration-looking words of stdin, one a line: a number glued to a unit.
durations() {
	tr -c 'A-Za-z0-9.\302\265' '\n' | sed 's/\.\.\.*/\n/g; s/\.$//' |
		grep -E "^[0-9]+(\.[0-9]+)?(ns|us|$(printf '\302\265')s|ms|s|min|m|h|d)\$" || true
}
# "0" when stdin shows 0 as a value of the duration at hand ("0 = off", "default 0: off").
zero() {
	grep -qE '(^|[^0-9.])"?0"? *(= off|\(off\)|turns it off|: off|= no limit)|default "?0"?[:)]' &&
		echo 0
}
# What --since also takes, in FILE: "1d ago", a local date, and --since's own argument.
since_forms() {
	grep -oE '[0-9]+(\.[0-9]+)?(ns|us|ms|s|min|m|h|d) ago' "$1"
	grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}(:[0-9]{2})?)?' "$1"
	sed -nE "s/.*--since[= ]('([^']*)'|\"([^\"]*)\"|([^ ,;)]+)).*/\\2\\3\\4/p" "$1" | grep -E '^[0-9]'
}

# Every text, as "SOURCE<TAB>SECTION<TAB>KEY<TAB>TEXT".
for page in "$SRC"/man/*.[1-8]; do
	man_paras "$page" | sed "s|^|$(basename "$page")\t|"
done >"$T/texts"
"$LATENCYCTL" --help | help_paras | sed 's/^/latencyctl --help\t/' >>"$T/texts"
commands=$(awk -F'\t' '$1 == "latencyctl --help" && $2 == "Commands" { print $3 }' "$T/texts")
[ -n "$commands" ] || bad "no command in latencyctl --help"
for c in $commands; do
	"$LATENCYCTL" "$c" --help | sed "s/^/latencyctl $c --help\tCommands\t$c\t/"
done >>"$T/texts"
"$LATENCYD" --help | sed 's/^/latencyd --help\t\t\t/' >>"$T/texts"
sample_settings "$SRC/etc/latencyd.conf" >"$T/sample"
[ -s "$T/sample" ] || bad "no setting with a comment in etc/latencyd.conf"

# 1. Each word through the grammar.
{
	cut -f4 "$T/texts"
	cat "$SRC/etc/latencyd.conf"
} | durations | sort -u >"$T/all"
mapfile -t words <"$T/all"
"$CHECK" "${words[@]}" || bad "the grammar refuses what the documentation shows (above)"

# 2. latencyctl's: set-threshold's and set-timeout's through the command, --since's too.
for c in set-threshold set-timeout; do
	awk -F'\t' -v c="$c" '$3 == c || $4 ~ ("latencyctl .*" c " ")' "$T/texts" | cut -f4 >"$T/text-$c"
	{
		durations <"$T/text-$c"
		zero <"$T/text-$c"
	} | sort -u >"$T/$c"
	while read -r d; do
		"$LATENCYCTL" -s "$NOSOCK" "$c" syscalls "$d" 2>"$T/err"
		[ $? = 3 ] || bad "latencyctl $c syscalls $d: $(cat "$T/err")"
	done <"$T/$c"
done
awk -F'\t' '$1 ~ /^latencyctl/ && $4 ~ /--since|WHEN/' "$T/texts" | cut -f4 >"$T/text-since"
{
	durations <"$T/text-since"
	since_forms "$T/text-since"
} | sort -u >"$T/since"
while read -r w; do
	"$LATENCYCTL" -s "$NOSOCK" list-snapshots --since "$w" 2>"$T/err"
	[ $? = 3 ] || bad "latencyctl list-snapshots --since '$w': $(cat "$T/err")"
done <"$T/since"

# 3. latencyd.conf's: each value shown for a duration setting, as that setting.
conf_check() { # SETTING VALUE
	local group=${1%%.*} rest=${1#*.} line
	case $1 in
	trackers.*.*) line="trackers: { ${rest%%.*}: { ${rest#*.} = \"$2\"; }; };" ;;
	*) line="$group: { $rest = \"$2\"; };" ;;
	esac
	# The saved-settings file of this machine has no say here.
	printf 'control: { save_file = ""; };\n%s\n' "$line" >"$T/one.conf"
	"$LATENCYD" --check-config "$T/one.conf" >/dev/null 2>"$T/err" ||
		bad "latencyd.conf(5) or the sample shows $1 = \"$2\": $(cat "$T/err")"
	echo "$1 $2" >>"$T/conf"
}
: >"$T/conf"
awk -F'\t' '$1 == "latencyd.conf.5" && $3 != "" && $4 ~ /\(duration/ { print $2 "." $3 "\t" $4 }' \
	"$T/texts" | sed 's/^trackers\.NAME\./trackers.syscalls./' >"$T/settings"
[ -s "$T/settings" ] || bad "no duration setting found in latencyd.conf(5)"
while IFS=$'\t' read -r setting text; do
	for v in $( {
		durations <<<"$text"
		zero <<<"$text"
	} | sort -u); do
		conf_check "$setting" "$v"
	done
done <"$T/settings"
while IFS=$'\t' read -r setting text; do
	grep -q "^${setting/#trackers.*./trackers.syscalls.}"$'\t' "$T/settings" || continue
	for v in $( {
		durations <<<"$text"
		zero <<<"$text"
	} | sort -u); do
		conf_check "${setting/#trackers.*./trackers.syscalls.}" "$v"
	done
done <"$T/sample"
n=0
awk '/^\.EX/ { n++; f = 1; next } /^\.EE/ { f = 0; next }
	f { gsub(/\\-/, "-"); print > (dir "/example-" n ".conf") }' dir="$T" "$SRC/man/latencyd.conf.5"
for f in "$T"/example-*.conf; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	sed -i '1i control: { save_file = ""; };' "$f"
	"$LATENCYD" --check-config "$f" >/dev/null 2>"$T/err" ||
		bad "an example of latencyd.conf(5) is refused: $(cat "$T/err")"$'\n'"$(cat "$f")"
done
"$LATENCYD" --check-config "$SRC/etc/latencyd.conf" >/dev/null 2>"$T/err" ||
	bad "etc/latencyd.conf: $(cat "$T/err")"

# What the documentation is known to show must have been found, each where it belongs.
need() { # FILE WHAT...
	local f=$1
	shift
	for w in "$@"; do
		grep -qxF -- "$w" "$T/$f" || bad "not found in the documentation ($f): '$w'"
	done
}
need all 50ms 2h 1.5ms 1us 30s 30d
need set-threshold 50ms 1us 1h 10ms 500us
need set-timeout 0 1ms 1h 2s
need since 2h 30min 1d '1d ago' '2026-11-25 14:00'
need conf 'session.history 30s' 'session.history 1s' 'session.history 1h' 'session.history 0' \
	'output.relayd_timeout 10ms' 'output.relayd_timeout 60s' 'output.relayd_timeout 2s' \
	'trackers.syscalls.threshold 1us' 'trackers.syscalls.threshold 1h' \
	'trackers.syscalls.timeout 0' 'trackers.syscalls.timeout 1ms' 'fleet.max_age 5s' \
	'collector.max_age 0'
[ "$n" -ge 3 ] || bad "only $n example files in latencyd.conf(5)"

[ $failed = 0 ] || exit 1
echo "ok: $(wc -l <"$T/all") durations through the grammar; set-threshold $(wc -l <"$T/set-threshold"), set-timeout $(wc -l <"$T/set-timeout"), --since $(wc -l <"$T/since") through latencyctl; $(wc -l <"$T/conf") latencyd.conf values and $n example files through latencyd --check-config"
