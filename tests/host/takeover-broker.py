#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# An MQTT v5 broker that only takes a session over, as a broker does when another client
# connects with the same client id: CONNACK, SUBACK granting every filter, then DISCONNECT
# with reason 0x8E (session taken over), which mosquitto 2.0.11 does not send. Each
# connection, until killed. Usage: takeover-broker.py PORTFILE   (listens on 127.0.0.1)
import socket
import sys

from mqtt_v5 import filters, listen


def varint(sock):
    n, shift = 0, 0
    while True:
        b = sock.recv(1)
        if not b:
            raise EOFError
        n |= (b[0] & 0x7F) << shift
        shift += 7
        if not b[0] & 0x80:
            return n


def packet(sock):
    head = sock.recv(1)
    if not head:
        raise EOFError
    left, body = varint(sock), b""
    while len(body) < left:
        chunk = sock.recv(left - len(body))
        if not chunk:
            raise EOFError
        body += chunk
    return head[0], body


def serve(conn):
    kind, _ = packet(conn)
    if kind >> 4 != 1:
        return
    conn.sendall(b"\x20\x03\x00\x00\x00")  # CONNACK: accepted, no properties
    while True:
        kind, body = packet(conn)
        if kind >> 4 == 8:  # SUBSCRIBE
            n = filters(body)
            conn.sendall(bytes([0x90, 3 + n]) + body[:2] + b"\x00" + b"\x01" * n)
            conn.sendall(b"\xe0\x02\x8e\x00")  # DISCONNECT: session taken over
            # Closing now would answer the client's next write with a reset, which discards
            # the DISCONNECT still unread in its socket: wait for the client to close.
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(10)
            while conn.recv(4096):
                pass
            return


def main():
    srv = listen(sys.argv[1])
    while True:
        conn, _ = srv.accept()
        try:
            serve(conn)
        except (EOFError, OSError):
            pass
        conn.close()


main()
