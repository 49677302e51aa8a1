# SPDX-License-Identifier: GPL-2.0-only
# What the test brokers (takeover-broker.py, ackless-broker.py) share: their listening
# socket and what they read of MQTT v5 packets.
import socket


def listen(portfile):
    """A socket listening on 127.0.0.1, on a port the system picks, written to PORTFILE."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    with open(portfile, "w") as f:
        f.write(f"{srv.getsockname()[1]}\n")
    return srv


def filters(body):
    """How many topic filters a v5 SUBSCRIBE asks for."""
    i, shift, props = 2, 0, 0
    while True:
        props |= (body[i] & 0x7F) << shift
        shift += 7
        i += 1
        if not body[i - 1] & 0x80:
            break
    i += props
    n = 0
    while i < len(body):
        i += 2 + int.from_bytes(body[i:i + 2], "big") + 1
        n += 1
    return n
