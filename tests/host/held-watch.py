# SPDX-License-Identifier: GPL-2.0-only
# held-watch.py SOCK: a watcher that stays connected to latencyd's control socket whatever
# it answers, for the tests of who may stay connected (latencyctl watch ends at once when
# latencyd has no flight recorder, as these tests' latencyd has not). It says hello, asks
# to watch, then writes each line latencyd sends as it comes (one JSON object a line: the
# hello, the reply, the error that ends the connection), and exits 0 once latencyd has closed.
# Run as python3 - SOCK <held-watch.py: a throwaway user runs it without reading the tree.
import socket
import sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
try:
    s.sendall(b'{"hello":{"protocol":1,"client":"held-watch"}}\n{"id":1,"command":"watch"}\n')
except OSError:
    pass  # turned away before the hello was read: its error is still there to read
try:
    for line in s.makefile("rb"):
        sys.stdout.write(line.decode("utf-8", "replace"))
        sys.stdout.flush()
except ConnectionResetError:
    pass  # closed with data unread: what came before is written
