#!/usr/bin/env python3
"""A hostile Bluetooth LE controller speaking HCI (H4) over TCP, for tests of how an LE host
(`mcumgr --hci tcp:HOST:PORT`) takes what a controller may send.

Standard library only; written from the Core spec (Vol 4 Part E), not from our host. It answers the
host's set-up commands as a plain LE controller does (version, LE buffers 251 x 8, LE features DLE
and 2M, every other command Command Complete with success; LE Create Connection and Disconnect by
Command Status), and once the host enables scanning does what the options ask:

  --flood-connections RATE  sends LE Connection Complete events nobody asked for (this host as
                            central, a new handle and peer each), RATE a second, in batches every
                            10 ms, until the host goes away
  --crowd N                 reports N advertisers that list another service (Heart Rate) and then
                            the SMP device (SMP service in its advertisement, --name in its scan
                            response), and all of them again every second
  --uuid-spam N             one address listing a new 128-bit service UUID in each of N
                            advertisements (with the crowd, before it)
  --disconnect complete|status|none
                            what a Disconnect gets: Command Status and Disconnection Complete
                            (default), Command Status only, or nothing

Prints "listening on HOST:PORT" once bound (port 0 picks a free one), and after each host leaves a
line "host left: ..." with how many events it sent and at what rate while scanning was on. Runs
until killed or until standard input closes (--exit-on-eof).
"""
import argparse
import select
import socket
import sys
import time

SMP_SERVICE = bytes.fromhex("8D53DC1D1DB74CD3868B8A527460AA84")[::-1]  # little-endian, as AD carries it


def event(code: int, parameters: bytes) -> bytes:
    return bytes([0x04, code, len(parameters)]) + parameters


def command_complete(opcode: int, returned: bytes) -> bytes:
    return event(0x0E, bytes([1]) + opcode.to_bytes(2, "little") + returned)


def command_status(opcode: int, status: int = 0) -> bytes:
    return event(0x0F, bytes([status, 1]) + opcode.to_bytes(2, "little"))


def address(n: int) -> bytes:
    """A random static address numbered n, in HCI's order (least significant byte first)."""
    return bytes([n & 0xFF, (n >> 8) & 0xFF, (n >> 16) & 0xFF, (n >> 24) & 0xFF, 0x02, 0xC0])


def connection_complete(handle: int, peer: bytes) -> bytes:
    # Subevent 0x01: status, handle, role (0 central), peer address type (random), peer,
    # interval 7.5 ms, latency 0, supervision timeout 2 s, clock accuracy.
    return event(0x3E, bytes([0x01, 0x00]) + handle.to_bytes(2, "little") + bytes([0x00, 0x01]) + peer
                 + bytes([0x06, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00]))


def ad(type_: int, value: bytes) -> bytes:
    return bytes([len(value) + 1, type_]) + value


def advertising_report(peer: bytes, data: bytes, kind: int = 0, rssi: int = -60) -> bytes:
    # Subevent 0x02, one report: event type, address type (random), address, data, RSSI.
    return event(0x3E, bytes([0x02, 0x01, kind, 0x01]) + peer + bytes([len(data)]) + data + bytes([rssi & 0xFF]))


def other_advertiser(n: int) -> bytes:
    data = ad(0x01, b"\x06") + ad(0x03, b"\x0D\x18") + ad(0x09, f"other-{n}".encode())
    return advertising_report(address(n), data)


class Controller:
    def __init__(self, connection: socket.socket, options: argparse.Namespace):
        self.sock = connection
        self.options = options
        self.buffer = b""
        self.scan_started = None
        self.sent_connections = 0
        self.sent_reports = 0
        self.next_handle = 0
        self.crowd_round = 0
        self.next_crowd = 0.0
        self.next_flood = 0.0

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def answer(self, opcode: int, parameters: bytes) -> None:
        if opcode == 0x1001:  # Read Local Version Information
            self.send(command_complete(opcode, bytes([0, 9, 0, 0, 9, 0xFF, 0xFF, 0, 0])))
        elif opcode == 0x2060:  # LE Read Buffer Size v2: 251 bytes x 8, no ISO
            self.send(command_complete(opcode, bytes([0, 0xFB, 0, 8, 0, 0, 0])))
        elif opcode == 0x2003:  # LE Read Local Supported Features: DLE, 2M
            self.send(command_complete(opcode, bytes([0, 0x20, 0x01, 0, 0, 0, 0, 0, 0])))
        elif opcode == 0x200C:  # LE Set Scan Enable
            self.send(command_complete(opcode, b"\x00"))
            if parameters[:1] == b"\x01" and self.scan_started is None:
                self.scan_started = time.monotonic()
                self.start_scan()
        elif opcode == 0x0406:  # Disconnect
            if self.options.disconnect != "none":
                self.send(command_status(opcode))
            if self.options.disconnect == "complete":
                self.send(event(0x05, bytes([0]) + parameters[:2] + bytes([0x16])))
        elif opcode in (0x200D, 0x2013, 0x2032):  # answered by Command Status
            self.send(command_status(opcode))
        else:
            self.send(command_complete(opcode, b"\x00"))

    def start_scan(self) -> None:
        if self.options.uuid_spam:
            spammer = address(0xFFFFFF)
            for n in range(self.options.uuid_spam):
                uuid = bytes([0x5A] * 12) + n.to_bytes(4, "little")
                self.send(advertising_report(spammer, ad(0x01, b"\x06") + ad(0x07, uuid)))
                self.sent_reports += 1
        if self.options.crowd is not None:
            self.crowd_burst()

    def crowd_burst(self) -> None:
        batch = b"".join(other_advertiser(n) for n in range(self.options.crowd))
        device = address(0x5A5A5A5A)
        batch += advertising_report(device, ad(0x01, b"\x06") + ad(0x07, SMP_SERVICE), kind=0)
        batch += advertising_report(device, ad(0x09, self.options.name.encode()), kind=4)
        self.send(batch)
        self.sent_reports += self.options.crowd + 2
        self.crowd_round += 1
        self.next_crowd = time.monotonic() + 1.0

    def tick(self) -> None:
        if self.scan_started is None:
            return
        now = time.monotonic()
        if self.options.flood_connections and now >= self.next_flood:
            # Catch up to the rate since scanning started, in batches of at most 10 ms' worth.
            due = int((now - self.scan_started) * self.options.flood_connections) - self.sent_connections
            count = max(0, min(due, self.options.flood_connections // 100 * 4))
            batch = bytearray()
            for _ in range(count):
                self.next_handle = self.next_handle % 0x0EFF + 1
                batch += connection_complete(self.next_handle, address(self.sent_connections))
                self.sent_connections += 1
            if batch:
                self.send(bytes(batch))
            self.next_flood = now + 0.01
        if self.options.crowd is not None and now >= self.next_crowd:
            self.crowd_burst()

    def read(self) -> bool:
        data = self.sock.recv(65536)
        if not data:
            return False
        self.buffer += data
        while len(self.buffer) >= 4:
            if self.buffer[0] == 0x01:
                length = self.buffer[3]
                if len(self.buffer) < 4 + length:
                    break
                opcode = int.from_bytes(self.buffer[1:3], "little")
                parameters = self.buffer[4:4 + length]
                self.buffer = self.buffer[4 + length:]
                self.answer(opcode, parameters)
            elif self.buffer[0] == 0x02:
                length = int.from_bytes(self.buffer[3:5], "little") if len(self.buffer) >= 5 else None
                if length is None or len(self.buffer) < 5 + length:
                    break
                self.buffer = self.buffer[5 + length:]
            else:
                self.buffer = b""
        return True

    def serve(self) -> str:
        try:
            while True:
                ready, _, _ = select.select([self.sock], [], [], 0.002)
                if ready and not self.read():
                    break
                self.tick()
        except OSError:
            pass
        seconds = time.monotonic() - self.scan_started if self.scan_started else 0.0
        rate = self.sent_connections / seconds if seconds > 0 else 0.0
        return (f"host left: {self.sent_connections} LE Connection Complete events and {self.sent_reports} advertising "
                f"reports sent in {seconds:.2f} s of scanning ({rate:.0f} connection events/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT to listen on")
    parser.add_argument("--flood-connections", type=int, default=0, metavar="RATE")
    parser.add_argument("--crowd", type=int, default=None, metavar="N")
    parser.add_argument("--uuid-spam", type=int, default=0, metavar="N")
    parser.add_argument("--name", default="smp-crowded")
    parser.add_argument("--disconnect", choices=["complete", "status", "none"], default="complete")
    parser.add_argument("--exit-on-eof", action="store_true")
    options = parser.parse_args()
    host, port = options.listen.rsplit(":", 1)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, int(port)))
    server.listen(4)
    print(f"listening on {host}:{server.getsockname()[1]}", flush=True)
    watched = [server] + ([sys.stdin] if options.exit_on_eof else [])
    while True:
        ready, _, _ = select.select(watched, [], [])
        if sys.stdin in ready and not sys.stdin.buffer.read1(4096):
            return
        if server in ready:
            connection, _ = server.accept()
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            print(Controller(connection, options).serve(), flush=True)
            connection.close()


if __name__ == "__main__":
    main()
