# SPDX-License-Identifier: GPL-2.0-only
# What the test brokers (takeover-broker.py, ackless-broker.py) read of MQTT v5 packets.


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
