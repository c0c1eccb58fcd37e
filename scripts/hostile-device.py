#!/usr/bin/env python3
"""A hostile SMP device over UDP, for tests of how a client takes malformed answers.

Standard library only. It answers every request with a response header that matches the request
(response op, same version, group, sequence and command) and a payload chosen by --answer:

  garbage        payload bytes that are not CBOR (0xff 0xff 0xff)
  lying-length   a header claiming 100 payload bytes, followed by 3
  not-a-map      a CBOR array instead of a map
  big-rc         {"rc": 18446744073709551615}
  err-group      {"err": {"group": 70000, "rc": -5}}
  empty          {}

Prints "listening on HOST:PORT" once bound (port 0 picks a free one) and runs until killed or
until standard input closes (--exit-on-eof).
"""
import argparse
import select
import socket
import sys

CBOR = {
    "garbage": bytes([0xFF, 0xFF, 0xFF]),
    "not-a-map": bytes([0x82, 0x01, 0x02]),
    # {"rc": 2^64 - 1}
    "big-rc": bytes([0xA1, 0x62]) + b"rc" + bytes([0x1B]) + b"\xff" * 8,
    # {"err": {"group": 70000, "rc": -5}}
    "err-group": bytes([0xA1, 0x63]) + b"err" + bytes([0xA2, 0x65]) + b"group"
    + bytes([0x1A, 0x00, 0x01, 0x11, 0x70, 0x62]) + b"rc" + bytes([0x24]),
    "empty": bytes([0xA0]),
}


def answer(request: bytes, kind: str) -> bytes:
    op = request[0] & 0x07
    version = request[0] & 0x18
    response_op = 1 if op == 0 else 3
    if kind == "lying-length":
        payload, declared = bytes([0xA0, 0xA0, 0xA0]), 100
    else:
        payload = CBOR[kind]
        declared = len(payload)
    header = bytes([version | response_op, 0]) + declared.to_bytes(2, "big") + request[4:8]
    return header + payload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--udp", default="127.0.0.1:0", help="HOST:PORT to bind")
    parser.add_argument("--answer", choices=["lying-length", *CBOR.keys()], required=True)
    parser.add_argument("--exit-on-eof", action="store_true")
    args = parser.parse_args()
    host, port = args.udp.rsplit(":", 1)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((host, int(port)))
    print(f"listening on {host}:{sock.getsockname()[1]}", flush=True)
    watched = [sock] + ([sys.stdin] if args.exit_on_eof else [])
    while True:
        ready, _, _ = select.select(watched, [], [])
        if sys.stdin in ready and not sys.stdin.buffer.read1(1):
            return
        if sock in ready:
            request, peer = sock.recvfrom(65535)
            if len(request) >= 8:
                sock.sendto(answer(request, args.answer), peer)


if __name__ == "__main__":
    main()
