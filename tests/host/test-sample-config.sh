#!/bin/bash
# etc/latencyd.conf, the documented sample, is valid.
set -u
SAMPLE=${3:?usage: $0 LATENCYD LATENCYCTL SAMPLE}
. "$(dirname "$0")/lib.sh"
run "$LATENCYD" --check-config "$SAMPLE"
expect_rc 0 "--check-config $SAMPLE"
[ "$(cat "$T/out")" = "configuration OK" ] || fail "not OK"
pass "the sample configuration is valid"
