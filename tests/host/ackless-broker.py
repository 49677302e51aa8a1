#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# An MQTT v5 broker that acknowledges nothing at first: its first DROPS connections each end
# half a second after the first PUBLISH came, with no PUBACK; on the next one it holds every
# PUBACK for HOLD seconds after the CONNACK, then acknowledges what it got and whatever
# comes after at once, and says "end" SHOW seconds after the CONNACK. It delivers nothing.
# One line on stdout for each PUBLISH ("conn N publish MID dup D TOPIC"), for the acks
# ("conn N acks COUNT") and the end ("conn N end"), each closed by the seconds since it
# started. A HOLD past the test's end is a broker that keeps the connection (it answers
# PINGREQ) and acknowledges nothing. RECEIVE_MAX, if given, goes in the CONNACK (MQTT v5
# Receive Maximum): without it libmosquitto keeps 20 unacknowledged PUBLISHes on the wire and
# holds back the next ones until a PUBACK comes.
# Usage: ackless-broker.py PORTFILE DROPS HOLD SHOW [RECEIVE_MAX]   (listens on 127.0.0.1)
import select
import sys
import time

from mqtt_v5 import filters, listen

T0 = time.monotonic()


def log(line):
    print(f"{line} {time.monotonic() - T0:.3f}", flush=True)


class Conn:
    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def packets(self, timeout):
        """The packets complete after waiting up to TIMEOUT seconds for more; EOFError once
        the client closed."""
        if select.select([self.sock], [], [], timeout)[0]:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buf += data
        out = []
        while True:
            p = self.one()
            if p is None:
                return out
            out.append(p)

    def one(self):
        b, n, shift, i = self.buf, 0, 0, 1
        while True:
            if i >= len(b):
                return None
            n |= (b[i] & 0x7F) << shift
            shift += 7
            i += 1
            if not b[i - 1] & 0x80:
                break
        if len(b) < i + n:
            return None
        self.buf = b[i + n:]
        return b[0], b[i:i + n]


def puback(sock, mid):
    sock.sendall(b"\x40\x02" + mid.to_bytes(2, "big"))


def connack(sock, receive_max):
    """Accepted; no properties, or the Receive Maximum (0x21) alone."""
    if receive_max is None:
        sock.sendall(b"\x20\x03\x00\x00\x00")
    else:
        sock.sendall(b"\x20\x06\x00\x00\x03\x21" + receive_max.to_bytes(2, "big"))


def serve(sock, index, drops, hold, show, receive_max):
    c = Conn(sock)
    while not c.packets(1):  # the CONNECT
        pass
    connack(sock, receive_max)
    start, first, held, acking, ended = time.monotonic(), None, [], False, False
    while True:
        for head, body in c.packets(0.05):
            kind = head >> 4
            if kind == 8:  # SUBSCRIBE: every filter granted QoS 1
                n = filters(body)
                sock.sendall(bytes([0x90, 3 + n]) + body[:2] + b"\x00" + b"\x01" * n)
            elif kind == 12:  # PINGREQ
                sock.sendall(b"\xd0\x00")
            elif kind == 14:  # DISCONNECT
                return
            elif kind == 3:
                tlen = int.from_bytes(body[:2], "big")
                qos = (head >> 1) & 3
                mid = int.from_bytes(body[2 + tlen:4 + tlen], "big") if qos else 0
                log(f"conn {index} publish {mid} dup {(head >> 3) & 1} "
                    f"{body[2:2 + tlen].decode(errors='replace')}")
                first = first or time.monotonic()
                if qos and acking:
                    puback(sock, mid)
                elif qos:
                    held.append(mid)
        elapsed = time.monotonic() - start
        if index < drops and first and time.monotonic() - first >= 0.5:
            return
        if index >= drops and not acking and elapsed >= hold:
            acking = True
            log(f"conn {index} acks {len(held)}")
            for mid in held:
                puback(sock, mid)
        if index >= drops and not ended and elapsed >= show:
            ended = True
            log(f"conn {index} end")


def main():
    drops, hold, show = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    receive_max = int(sys.argv[5]) if len(sys.argv) > 5 else None
    if receive_max is not None and not 1 <= receive_max <= 65535:
        sys.exit(f"ackless-broker.py: RECEIVE_MAX is 1 to 65535, not {receive_max}")
    srv = listen(sys.argv[1])
    index = 0
    while True:
        conn, _ = srv.accept()
        try:
            serve(conn, index, drops, hold, show, receive_max)
        except (EOFError, OSError):
            pass
        conn.close()
        index += 1


main()
