#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# An MQTT v5 broker that accepts every connection and never acknowledges a SUBSCRIBE: a
# CONNACK, a PINGRESP to each PINGREQ (the client's keepalive never ends the connection), a
# PUBACK to each QoS 1 PUBLISH, nothing else. One line on stdout per connection ("conn N")
# and per SUBSCRIBE ("conn N subscribe"). Usage: subackless-broker.py PORTFILE
# (listens on 127.0.0.1)
import select
import sys

from mqtt_v5 import listen


def packets(buf):
    """The complete packets at the start of BUF, and what is left of it."""
    out = []
    while True:
        n, shift, i = 0, 0, 1
        while True:
            if i >= len(buf):
                return out, buf
            n |= (buf[i] & 0x7F) << shift
            shift += 7
            i += 1
            if not buf[i - 1] & 0x80:
                break
        if len(buf) < i + n:
            return out, buf
        out.append((buf[0], buf[i:i + n]))
        buf = buf[i + n:]


def answer(conn, n, kind, body):
    if kind >> 4 == 1:  # CONNECT
        conn.sendall(b"\x20\x03\x00\x00\x00")  # CONNACK: accepted, no properties
    elif kind >> 4 == 3 and (kind >> 1) & 3 == 1:  # PUBLISH, QoS 1: after the topic, the mid
        at = 2 + int.from_bytes(body[:2], "big")
        conn.sendall(b"\x40\x02" + body[at:at + 2])
    elif kind >> 4 == 8:  # SUBSCRIBE: never acknowledged
        print(f"conn {n} subscribe", flush=True)
    elif kind >> 4 == 12:  # PINGREQ
        conn.sendall(b"\xd0\x00")


def main():
    srv = listen(sys.argv[1])
    conns, n = {}, 0
    while True:
        ready = select.select([srv] + list(conns), [], [])[0]
        for s in ready:
            if s is srv:
                conn, _ = srv.accept()
                n += 1
                conns[conn] = (n, b"")
                print(f"conn {n}", flush=True)
                continue
            num, buf = conns[s]
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                del conns[s]
                s.close()
                continue
            got, buf = packets(buf + data)
            conns[s] = (num, buf)
            try:
                for kind, body in got:
                    answer(s, num, kind, body)
            except OSError:
                del conns[s]
                s.close()


main()
