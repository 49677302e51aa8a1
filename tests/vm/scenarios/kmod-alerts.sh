# Alerts read back from user space through /dev/latency_tracker with poll/epoll and read:
# every record field, blocking and non-blocking reads, two readers, timeouts, the rate
# limit's accounting and the LOST record (tests/vm/progs/lt-alerts.c); lseek while another
# thread of the process sleeps in read() (tests/vm/progs/lt-seek-blocked.c).
. "$VM_IN/scenarios/guest-lib.sh"

modprobe latency_tracker_selftest || fail "modprobe latency_tracker_selftest"
lt-alerts || fail "lt-alerts"
lt-seek-blocked || fail "lt-seek-blocked"
lt-dump | tail -n 3
rmmod latency_tracker_selftest || fail "rmmod latency_tracker_selftest"
rmmod latency_tracker || fail "rmmod latency_tracker"
pass "alerts read back with poll()+read()"
