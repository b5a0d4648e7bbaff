"""A host we did not write: drives an Asgard slave with jeepney, from the schema alone.

It does what a third-party compound-document host would do with schemas/org.asgard.*.xml and
nothing else: starts `asgard slave --dbus-fd N` on one end of a socket pair, authenticates as
the D-Bus client on the other, loads a scene, creates a rendition, maps the frame memory it
receives as a file descriptor, reads frames with the sequence lock the schema describes, and
checks that they move; it shows the position handles, finds them in the picture, drags one
with Shift held and expects SceneTextChanged with a new literal; it makes bad calls and
expects the named errors, and floods the slave with pointer motion.

Usage: python3 jeepney_host.py ASGARD_EXECUTABLE
Prints one "ok NAME" line per check; any failure raises and exits non-zero.
"""

import array
import mmap
import os
import re
import socket
import struct
import subprocess
import sys
import time
from collections import deque

from jeepney import DBusAddress, HeaderFields, MessageType, Parser, new_method_call
from jeepney.auth import BEGIN, Authenticator
from jeepney.fds import FileDescriptor, fds_buf_size

DESTINATION = "org.asgard.Asgard1"
SUBDOCUMENT = DBusAddress(
    "/org/asgard/Asgard1/Subdocument",
    bus_name=DESTINATION,
    interface="org.asgard.Subdocument1",
)
ERROR = "org.asgard.Asgard1.Error."
SHIFT = 1
LIMIT = 60.0  # seconds any single wait may take before the check fails

SCENE = """shape_set ss1 desc {sub pos {0 0 0} sphere 0.5}
body b2 artbody 1 shape ss1 init_pos {-1 0 0} init_dpos {1 0 0}
body b3 artbody 1 shape ss1 init_pos {1 0 0} init_dpos {0 1 0}
simulator finish 3
"""


class DBusError(Exception):
    def __init__(self, name, message):
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


class Slave:
    """One slave process and the private connection to it."""

    def __init__(self, asgard):
        host_end, slave_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.process = subprocess.Popen(
            [asgard, "slave", "--dbus-fd", str(slave_end.fileno())],
            pass_fds=[slave_end.fileno()],
        )
        slave_end.close()
        self.sock = host_end
        self.sock.settimeout(LIMIT)
        self.sock.sendall(b"\0")
        auth = Authenticator(enable_fds=True, inc_null_byte=False)
        for request in auth:
            self.sock.sendall(request)
            auth.feed(self.sock.recv(1024))
        self.sock.sendall(BEGIN)
        self.parser = Parser()
        self.serial = 0
        self.signals = deque()
        self.replies = {}

    def close(self):
        self.sock.close()
        return self.process.wait(timeout=LIMIT)

    def send(self, address, method, signature=None, body=()):
        """Sends a method call; returns its serial."""
        self.serial += 1
        message = new_method_call(address, method, signature, body)
        fds = array.array("i")
        data = message.serialise(serial=self.serial, fds=fds)
        if fds:
            self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        else:
            self.sock.sendall(data)
        return self.serial

    def receive(self):
        """The next message from the slave."""
        while True:
            message = self.parser.get_next_message()
            if message is not None:
                return message
            data, ancillary, _, _ = self.sock.recvmsg(
                self.parser.bytes_desired(), fds_buf_size()
            )
            if not data:
                raise EOFError("the slave closed the connection")
            self.parser.add_data(data, fds=FileDescriptor.from_ancdata(ancillary))

    def pump(self):
        """Reads one message, filing it as a signal or a reply."""
        message = self.receive()
        kind = message.header.message_type
        if kind == MessageType.signal:
            self.signals.append(message)
        elif kind in (MessageType.method_return, MessageType.error):
            self.replies[message.header.fields[HeaderFields.reply_serial]] = message

    def reply(self, serial):
        """The body of the reply to call `serial`, or its error raised as DBusError."""
        while serial not in self.replies:
            self.pump()
        message = self.replies.pop(serial)
        if message.header.message_type == MessageType.error:
            name = message.header.fields[HeaderFields.error_name]
            text = message.body[0] if message.body else ""
            raise DBusError(name, text)
        return message.body

    def call(self, address, method, signature=None, *body):
        return self.reply(self.send(address, method, signature, body))

    def get(self, address, name):
        properties = DBusAddress(
            address.object_path,
            bus_name=DESTINATION,
            interface="org.freedesktop.DBus.Properties",
        )
        return self.call(properties, "Get", "ss", address.interface, name)[0][1]

    def set(self, address, name, signature, value):
        properties = DBusAddress(
            address.object_path,
            bus_name=DESTINATION,
            interface="org.freedesktop.DBus.Properties",
        )
        self.call(properties, "Set", "ssv", address.interface, name, (signature, value))

    def wait_signal(self, member, path=None, accept=lambda body: True):
        """The body of the next signal `member` (from `path`) that `accept`s, dropping others."""
        deadline = time.monotonic() + LIMIT
        while time.monotonic() < deadline:
            while self.signals:
                signal = self.signals.popleft()
                fields = signal.header.fields
                if fields[HeaderFields.member] != member:
                    continue
                if path is not None and fields[HeaderFields.path] != path:
                    continue
                if accept(signal.body):
                    return signal.body
            self.pump()
        raise AssertionError(f"no {member} signal within {LIMIT} s")


def expect_error(name, action, prefix=ERROR):
    try:
        action()
    except DBusError as e:
        assert e.name == prefix + name, f"expected {prefix + name}, got {e}"
        assert e.message, f"{e.name} has no message"
        return e.message
    raise AssertionError(f"expected {prefix + name}, the call succeeded")


class Frames:
    """Frame memory mapped read-only, read as the schema says."""

    HEADER = struct.Struct("=8sIIIIQI")

    def __init__(self, reply):
        fd, width, height, stride, buffers, buffer_size = reply
        self.fd = fd.to_raw_fd()
        self.size = 64 + buffers * buffer_size
        assert os.fstat(self.fd).st_size == self.size, "the memory's size disagrees"
        self.memory = mmap.mmap(self.fd, self.size, mmap.MAP_SHARED, mmap.PROT_READ)
        magic, w, h, s, n, b, _ = self.HEADER.unpack_from(self.memory, 0)
        assert magic == b"ASGFRM01", magic
        assert (w, h, s, n, b) == (width, height, stride, buffers, buffer_size)
        self.width, self.height, self.stride = width, height, stride
        self.buffers, self.buffer_size = buffers, buffer_size

    def retired(self):
        return struct.unpack_from("=I", self.memory, 32)[0] != 0

    def read(self, buffer):
        """(serial, time, pixels) of a whole frame in `buffer`, or None if torn or empty."""
        start = 64 + buffer * self.buffer_size
        before = struct.unpack_from("=Q", self.memory, start)[0]
        if before % 2:
            return None
        serial, time_ = struct.unpack_from("=Qd", self.memory, start + 8)
        pixels = self.memory[start + 64 : start + 64 + self.stride * self.height]
        after = struct.unpack_from("=Q", self.memory, start)[0]
        if after != before or serial == 0:
            return None
        return serial, time_, pixels

    def close(self):
        self.memory.close()
        os.close(self.fd)


def next_frame(slave, rendition, frames, after_serial=0):
    """The first whole frame announced by FrameReady with a serial above `after_serial`."""
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        serial, buffer, _ = slave.wait_signal(
            "FrameReady", rendition.object_path, lambda b: b[0] > after_serial
        )
        frame = frames.read(buffer)
        if frame is not None and frame[0] >= serial:
            return frame
    raise AssertionError("no whole frame")


def changed_pixels(a, b):
    return [i // 4 for i in range(0, len(a), 4) if a[i : i + 4] != b[i : i + 4]]


def largest_blob(indices, width):
    """The centroid (x, y) of the largest 8-connected set of pixel indices."""
    remaining = set(indices)
    best = []
    while remaining:
        seed = remaining.pop()
        blob, todo = [seed], [seed]
        while todo:
            p = todo.pop()
            x, y = p % width, p // width
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    q = (y + dy) * width + (x + dx)
                    if 0 <= x + dx < width and q in remaining:
                        remaining.remove(q)
                        blob.append(q)
                        todo.append(q)
        if len(blob) > len(best):
            best = blob
    return (
        sum(p % width for p in best) / len(best),
        sum(p // width for p in best) / len(best),
    )


def main(asgard):
    slave = Slave(asgard)

    slave.call(SUBDOCUMENT, "SetSceneText", "s", SCENE)
    assert slave.call(SUBDOCUMENT, "GetSceneText")[0] == SCENE
    status = slave.get(SUBDOCUMENT, "Status")
    assert status in ("simulating", "ready"), status
    assert abs(slave.get(SUBDOCUMENT, "Duration") - 3.0) < 1e-9
    print("ok scene loads")

    path = slave.call(SUBDOCUMENT, "CreateRendition", "uu", 320, 240)[0]
    assert re.fullmatch(r"/org/asgard/Asgard1/Rendition/\d+", path), path
    rendition = DBusAddress(path, bus_name=DESTINATION, interface="org.asgard.Rendition1")
    assert slave.get(rendition, "Size") == (320, 240)
    assert path in slave.get(SUBDOCUMENT, "Renditions")
    frames = Frames(slave.call(rendition, "GetFrameBuffer"))
    assert (frames.width, frames.height) == (320, 240)
    slave.set(rendition, "Loop", "b", True)
    slave.call(rendition, "Play")
    assert slave.get(rendition, "Playing") is True
    first = next_frame(slave, rendition, frames)
    later = first
    while later[1] < first[1] + 0.3 or later[1] == first[1]:
        later = next_frame(slave, rendition, frames, later[0])
    moved = changed_pixels(first[2], later[2])
    assert len(moved) > 100, f"only {len(moved)} pixels changed in {later[1] - first[1]} s"
    print(f"ok frames move ({len(moved)} pixels changed between t={first[1]:.2f} and {later[1]:.2f})")

    slave.call(rendition, "Pause")
    slave.call(rendition, "Seek", "d", 0.0)
    still = next_frame(slave, rendition, frames, later[0])
    while still[1] != 0.0:  # frames drawn before the pause and seek arrive first
        still = next_frame(slave, rendition, frames, still[0])
    slave.call(SUBDOCUMENT, "SetHandlesVisible", "sb", "position", True)
    assert slave.get(SUBDOCUMENT, "HandlesVisible") == ["position"]
    with_handles = next_frame(slave, rendition, frames, still[0])
    handle_pixels = changed_pixels(still[2], with_handles[2])
    assert handle_pixels, "showing the position handles changed no pixel"
    x, y = largest_blob(handle_pixels, frames.width)
    slave.call(rendition, "Pointer", "suddu", "enter", 0, x, y, 0)
    slave.call(rendition, "Pointer", "suddu", "press", 1, x, y, SHIFT)
    for step in range(1, 11):
        slave.call(rendition, "Pointer", "suddu", "motion", 0, x + 4 * step, y, SHIFT)
    slave.call(rendition, "Pointer", "suddu", "release", 1, x + 40, y, SHIFT)
    # One SceneTextChanged per change; the last carries the text the slave now has.
    text = slave.call(SUBDOCUMENT, "GetSceneText")[0]
    slave.wait_signal("SceneTextChanged", accept=lambda body: body[0] == text)
    old_lines, new_lines = SCENE.splitlines(), text.splitlines()
    assert len(old_lines) == len(new_lines), text
    changed = [(a, b) for a, b in zip(old_lines, new_lines) if a != b]
    assert len(changed) == 1, changed
    before, after = changed[0]
    literal = re.compile(r"init_pos \{[^}]*\}")
    assert literal.sub("", before) == literal.sub("", after), changed
    print(f"ok a handle drag edits the text: {after.strip()}")

    for width, height in ((0, 0), (100000, 100000), (320, 0)):
        message = expect_error(
            "InvalidSize",
            lambda: slave.call(SUBDOCUMENT, "CreateRendition", "uu", width, height),
        )
        assert "8192" in message, message
    expect_error("InvalidSize", lambda: slave.call(rendition, "Resize", "uu", 0, 10))
    message = expect_error(
        "InvalidArgument", lambda: slave.call(SUBDOCUMENT, "OpenEditor", "s", "spreadsheet")
    )
    assert "language" in message, message
    expect_error(
        "InvalidArgument",
        lambda: slave.call(SUBDOCUMENT, "SetHandlesVisible", "sb", "everything", True),
    )
    expect_error(
        "InvalidArgument",
        lambda: slave.call(rendition, "Pointer", "suddu", "hover", 0, 1.0, 1.0, 0),
    )
    expect_error("InvalidArgument", lambda: slave.call(rendition, "Seek", "d", float("nan")))
    expect_error(
        "InvalidArgs",
        lambda: slave.set(rendition, "Mode", "s", "fast"),
        prefix="org.freedesktop.DBus.Error.",
    )
    print("ok bad arguments get named errors")

    broken = "body b1 shape nosuch init_pos {0 0 0}\n"
    message = expect_error("InvalidScene", lambda: slave.call(SUBDOCUMENT, "SetSceneText", "s", broken))
    assert re.match(r"\d+:\d+: ", message), message
    error_message, line, column = slave.wait_signal("Error")
    assert line == 1 and column >= 1, (line, column)
    assert slave.get(SUBDOCUMENT, "Status") == "error"
    assert slave.call(SUBDOCUMENT, "GetSceneText")[0] == broken
    slave.call(SUBDOCUMENT, "SetSceneText", "s", text)
    print(f"ok a bad scene is kept and reported: {error_message} at {line}:{column}")

    rss_before = resident_kib(slave.process.pid)
    # Calls go out in bursts of 100 before their replies are read: a client that never reads
    # fills the socket both ways (each small message takes about a kilobyte of socket buffer)
    # and stalls itself, whatever the slave does.
    for burst in range(200):
        serials = [
            slave.send(rendition, "Pointer", "suddu", ("motion", 0, float(i % 320), 10.0, 0))
            for i in range(burst * 100, burst * 100 + 100)
        ]
        for serial in serials:
            slave.reply(serial)
    slave.call(SUBDOCUMENT, "GetSceneText")
    rss_after = resident_kib(slave.process.pid)
    assert rss_after - rss_before < 64 * 1024, f"{rss_before} KiB -> {rss_after} KiB"
    print(f"ok a flood of 20000 motions is served ({rss_before} -> {rss_after} KiB resident)")

    slave.call(rendition, "Close")
    assert frames.retired(), "a closed rendition's memory is not retired"
    for method in ("Play", "Pause", "GetFrameBuffer"):
        expect_error("Closed", lambda: slave.call(rendition, method))
    expect_error("Closed", lambda: slave.call(rendition, "Resize", "uu", 10, 10))
    assert path not in slave.get(SUBDOCUMENT, "Renditions")
    print("ok a closed rendition answers Closed")
    frames.close()

    assert slave.close() == 0, "the slave did not exit cleanly when the connection closed"
    print("ok the slave exits when the host closes the connection")


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


if __name__ == "__main__":
    main(sys.argv[1])
