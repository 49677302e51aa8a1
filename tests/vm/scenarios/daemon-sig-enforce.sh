# vm-options: --append module.sig_enforce=1
# Secure Boot's rule, without Secure Boot: the kernel takes signed modules only, and ours,
# built here, are not signed. latencyd must not start, and say why once, at error priority
# whatever log.level says, with the module, the cause and the fix (latency_tracker(4),
# SECURE BOOT); no tracker module may be left loaded.
. "$VM_IN/scenarios/guest-lib.sh"

grep -q Y /sys/module/module/parameters/sig_enforce ||
	fail "module.sig_enforce is off: $(cat /sys/module/module/parameters/sig_enforce 2>&1)"
D=/tmp/latencyd
CONF_SOCKET=$D/run/ctl.sock conf_base 'log: { level = "error"; };'
latencyd -c $D/latencyd.conf 2>$D/err.log
rc=$?
cp $D/err.log "$VM_OUT/"
cat $D/err.log
[ $rc = 1 ] || fail "latencyd exited with $rc, not 1"
[ "$(grep -c . $D/err.log)" = 1 ] || fail "not one line: $(cat $D/err.log)"
grep -q "^latencyd: error: start-up failed: cannot load kernel module [a-z_-]*: .*: the kernel takes signed modules only (Secure Boot, or module.sig_enforce=1): enrol the key DKMS signs them with, mokutil --import /var/lib/dkms/mok.pub" $D/err.log ||
	fail "the error does not say the cause and the fix"
! ls /sys/module | grep -q '^latency_tracker' || fail "a tracker module is loaded: $(ls /sys/module | grep latency)"
pass "module.sig_enforce=1: latencyd does not start; one error names the module, the cause and the fix"
