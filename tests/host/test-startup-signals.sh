#!/bin/bash
# Signals during start-up: a SIGHUP or SIGTERM that comes while latencyd still reads its
# configuration (before its event loop exists) must neither end it by the signal's default
# action nor be lost: the stop or the reload happens once start-up is done. latencyd is held
# there for certain by its first log line (a warning of the file), written to a pipe the test
# filled: the write blocks until the test reads the pipe, after the signal.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 77; }

SOCK=$T/ctl.sock
# The unknown event is a warning, never an error: latencyd starts, after writing it.
write_conf <<CONF
control: { socket = "$SOCK"; };
log: { level = "info"; };
session: { enabled = false; events = [ "h13_not_a_probe_event" ]; };
CONF

# held SIG: starts latencyd held at its first log line, sends SIG, lets it go on; with SIGHUP
# then waits for the reload and stops it with SIGTERM. Prints its log, exits with its status
# (128 + N when a signal ended it).
held() {
	python3 - "$LATENCYD" "$T/latencyd.conf" "$1" <<'PY'
import fcntl, os, signal, subprocess, sys, threading, time

latencyd, conf, sig = sys.argv[1], sys.argv[2], getattr(signal, "SIG" + sys.argv[3])
r, w = os.pipe()
flags = fcntl.fcntl(w, fcntl.F_GETFL)
fcntl.fcntl(w, fcntl.F_SETFL, flags | os.O_NONBLOCK)
filled = 0
for size in (4096, 1):
    try:
        while True:
            filled += os.write(w, b"x" * size)
    except BlockingIOError:
        pass
fcntl.fcntl(w, fcntl.F_SETFL, flags)  # latencyd's writes must block, not fail
p = subprocess.Popen([latencyd, "-c", conf], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=w)
os.close(w)


def wchan():
    try:
        with open(f"/proc/{p.pid}/wchan") as f:
            return f.read()
    except OSError:
        return ""


deadline = time.monotonic() + 20
while "pipe_write" not in wchan():
    if p.poll() is not None or time.monotonic() > deadline:
        sys.exit(f"latencyd never blocked writing its first log line (wchan {wchan()!r})")
    time.sleep(0.05)
os.kill(p.pid, sig)

log = bytearray()


def drain():
    while chunk := os.read(r, 65536):
        log.extend(chunk)


reader = threading.Thread(target=drain, daemon=True)
reader.start()


def text():
    return bytes(log[filled:]).decode(errors="replace")


def wait_log(what):
    while what not in text():
        if p.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


deadline = time.monotonic() + 30
if sig == signal.SIGHUP:
    if wait_log("configuration reloaded"):
        p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(timeout=max(1, deadline - time.monotonic()))
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
reader.join(5)
sys.stdout.write(text())
sys.exit(128 - rc if rc < 0 else rc)
PY
}

rc=0
held HUP >"$T/hup.log" || rc=$?
[ "$rc" = 0 ] || fail "SIGHUP while the configuration was read: exit status $rc ($(kill -l "$((rc - 128))" 2>/dev/null || echo not a signal)), expected 0"
grep -q "listening on $SOCK" "$T/hup.log" || fail "latencyd did not start after SIGHUP"
grep -q "configuration reloaded from $T/latencyd.conf" "$T/hup.log" ||
	fail "the SIGHUP of start-up was not a reload once started"
grep -q "stopped" "$T/hup.log" || fail "no clean stop after the reload"
pass "SIGHUP during start-up: started, then reloaded, then stopped cleanly"

rc=0
held TERM >"$T/term.log" || rc=$?
[ "$rc" = 0 ] || fail "SIGTERM while the configuration was read: exit status $rc ($(kill -l "$((rc - 128))" 2>/dev/null || echo not a signal)), expected 0"
grep -q "listening on $SOCK" "$T/term.log" || fail "latencyd did not finish its start-up"
grep -q "received SIGTERM, shutting down" "$T/term.log" || fail "the SIGTERM of start-up was lost"
grep -q "stopped" "$T/term.log" || fail "no clean stop"
[ -e "$SOCK" ] && fail "the socket is left after the stop"
pass "SIGTERM during start-up: stopped cleanly once start-up was done"
