#!/usr/bin/env python3
"""Writes the seed corpus of the dbus_request fuzz target: one D-Bus method call per method
of schemas/ (and a few wrong ones), in the wire format a host sends, little- and big-endian.

Run from the repository root: python3 fuzz/seeds/dbus_messages.py fuzz/corpus/dbus_request
"""

import struct
import sys
from pathlib import Path

SUB = "/org/asgard/Asgard1/Subdocument"
REN = "/org/asgard/Asgard1/Rendition/1"
SUBI = "org.asgard.Subdocument1"
RENI = "org.asgard.Rendition1"
PROPS = "org.freedesktop.DBus.Properties"


class Writer:
    def __init__(self, endian):
        self.e = endian
        self.b = bytearray()

    def align(self, n):
        while len(self.b) % n:
            self.b.append(0)

    def put(self, sig, value):
        e = self.e
        if sig == "y":
            self.b.append(value)
        elif sig == "b":
            self.align(4)
            self.b += struct.pack(e + "I", 1 if value else 0)
        elif sig == "u":
            self.align(4)
            self.b += struct.pack(e + "I", value)
        elif sig == "d":
            self.align(8)
            self.b += struct.pack(e + "d", value)
        elif sig in ("s", "o"):
            self.align(4)
            data = value.encode()
            self.b += struct.pack(e + "I", len(data)) + data + b"\0"
        elif sig == "g":
            data = value.encode()
            self.b += bytes([len(data)]) + data + b"\0"
        elif sig == "v":
            inner, v = value
            self.put("g", inner)
            self.put(inner, v)
        else:
            raise ValueError(sig)


def message(endian, path, interface, member, signature, args, serial=1):
    body = Writer(endian)
    for sig, value in zip(signature, args):
        body.put(sig, value)
    fields = [(1, ("o", path)), (3, ("s", member))]
    if interface is not None:
        fields.insert(1, (2, ("s", interface)))
    if signature:
        fields.append((8, ("g", signature)))
    head = Writer(endian)
    head.b += (b"l" if endian == "<" else b"B") + bytes([1, 0, 1])
    head.b += struct.pack(endian + "II", len(body.b), serial)
    array = Writer(endian)
    for code, variant in fields:
        array.align(8)
        array.put("y", code)
        array.put("v", variant)
    # The fields array: its length, then the structs from an 8-aligned offset (16).
    head.b += struct.pack(endian + "I", len(array.b))
    head.b += array.b
    head.align(8)
    return bytes(head.b + body.b)


CALLS = [
    (SUB, SUBI, "SetSceneText", "s", ["shape_set s desc {sphere 1}\nbody b shape s\n"]),
    (SUB, SUBI, "GetSceneText", "", []),
    (SUB, SUBI, "Simulate", "", []),
    (SUB, SUBI, "CreateRendition", "uu", [320, 240]),
    (SUB, SUBI, "CreateRendition", "uu", [0, 99999]),
    (SUB, SUBI, "OpenEditor", "s", ["graphical"]),
    (SUB, SUBI, "SetHandlesVisible", "sb", ["angular-velocity", True]),
    (REN, RENI, "Resize", "uu", [640, 480]),
    (REN, RENI, "Play", "", []),
    (REN, RENI, "Pause", "", []),
    (REN, RENI, "Seek", "d", [1.5]),
    (REN, RENI, "GetFrameBuffer", "", []),
    (REN, RENI, "Pointer", "suddu", ["press", 1, 10.5, 20.25, 1]),
    (REN, RENI, "Pointer", "suddu", ["motion", 0, float("nan"), 0.0, 0]),
    (REN, RENI, "Scroll", "ddu", [0.0, -1.0, 2]),
    (REN, RENI, "Key", "sbu", ["space", True, 0]),
    (REN, RENI, "Close", "", []),
    (REN, PROPS, "Get", "ss", [RENI, "Time"]),
    (SUB, PROPS, "GetAll", "s", [SUBI]),
    (REN, PROPS, "Set", "ssv", [RENI, "Mode", ("s", "live")]),
    (REN, PROPS, "Set", "ssv", [RENI, "Loop", ("b", False)]),
    (SUB, "org.freedesktop.DBus.Introspectable", "Introspect", "", []),
    (SUB, "org.freedesktop.DBus.Peer", "Ping", "", []),
    (SUB, None, "Simulate", "", []),
    ("/org/asgard/Asgard1/Rendition/0", RENI, "Play", "", []),
]


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for endian, tag in (("<", "le"), (">", "be")):
        for n, (path, interface, member, signature, args) in enumerate(CALLS):
            data = message(endian, path, interface, member, signature, args, serial=n + 1)
            (out / f"{tag}-{n:02}-{member}").write_bytes(data)


if __name__ == "__main__":
    main()
