#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Fuzz/corpus/fuzz-NAME/) from the test fixtures.

Run from the repository root with the project venv (cbor2 encodes the SMP payloads):
    .venv/bin/python Fuzz/make-seeds.py
The output is committed; it is small (a few hundred files, ~100 KiB) and the same on every run.
Seeds come from Tests/CBORTests/Fixtures/cbor2-vectors.json (CBOR vectors and SMP payloads),
Tests/McuBootTests/Fixtures/images (MCUboot images made with imgtool), and the worked examples
of the protocol reference (SMP packets), re-encoded with cbor2.
"""
import hashlib
import json
import pathlib
import shutil
import struct

import cbor2

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "corpus"


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(bytes(data))


def header(op, group, seq, cmd, length, version=1):
    return bytes([(version << 3) | op, 0]) + struct.pack(">HHBB", length, group, seq, cmd)


def packet(op, group, seq, cmd, payload, version=1):
    body = payload if isinstance(payload, (bytes, bytearray)) else cbor2.dumps(payload)
    return header(op, group, seq, cmd, len(body), version) + body


def indefinite_map(entries):
    """A map as a default Zephyr build encodes it: 0xbf ... 0xff."""
    out = b"\xbf"
    for key, value in entries.items():
        out += cbor2.dumps(key) + cbor2.dumps(value)
    return out + b"\xff"


def piece(data):
    return struct.pack(">H", len(data)) + data


def main():
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    vectors = json.loads((ROOT / "Tests/CBORTests/Fixtures/cbor2-vectors.json").read_text())

    # CBOR: every vector (definite and indefinite) and the SMP payloads.
    for index, vector in enumerate(vectors["vectors"] + vectors["indefinite"]):
        write("fuzz-cbor", f"vector-{index:03}", bytes.fromhex(vector["hex"]))
    for index, vector in enumerate(vectors["smp"]):
        write("fuzz-cbor", f"smp-{index:02}", bytes.fromhex(vector["hex"]))

    # SMP packets: the reference's worked examples (smp-reference §8), definite and as Zephyr sends them.
    image_hash = bytes.fromhex("150dab841b12b517b5421a0c97ebbb3f2f4df1f12f11f36906eb52301ffb53c5")
    responses = {
        "echo": packet(3, 0, 0x42, 0, {"r": "hello"}),
        "echo-zephyr": packet(3, 0, 0x42, 0, indefinite_map({"r": "hello"})),
        "upload-off": packet(3, 1, 0x10, 1, {"off": 64}),
        "upload-match": packet(3, 1, 0x19, 1, {"off": 584, "match": True}),
        "hash-not-found": packet(3, 1, 0x20, 0, {"err": {"group": 1, "rc": 8}}),
        "hash-not-found-zephyr": packet(3, 1, 0x20, 0, indefinite_map({"err": {"group": 1, "rc": 8}})),
        "rc-v1": packet(3, 1, 0x20, 0, {"rc": 1}, version=0),
        "enotsup": packet(1, 0, 0x21, 3, {"rc": 8}),
        "params": packet(1, 0, 0x50, 6, {"buf_size": 2475, "buf_count": 4}),
        "reset": packet(3, 0, 0x51, 5, {}),
        "image-list": packet(1, 1, 0x31, 0, {"images": [
            {"slot": 0, "version": "1.2.3.4", "hash": image_hash, "bootable": True, "pending": False,
             "confirmed": True, "active": True, "permanent": False}]}),
        "fs-download": packet(1, 8, 0x60, 0, {"off": 0, "data": b"hello", "len": 5}),
    }
    for name, data in responses.items():
        write("fuzz-smp-packet", name, data)
    write("fuzz-smp-packet", "two-packets", responses["echo"] + responses["upload-off"])
    write("fuzz-smp-packet", "image-list-request", packet(0, 1, 0x31, 0, {}))

    # The assembler: a size limit, the responses' side, then the packets in several fragmentations.
    stream = b"".join(responses.values())
    for size in (1, 7, 20, 255):
        pieces = b"".join(bytes([len(stream[i:i + size])]) + stream[i:i + size] for i in range(0, len(stream), size))
        write("fuzz-packet-assembler", f"responses-by-{size}", bytes([40, 0]) + pieces)
    requests = packet(2, 0, 1, 0, {"d": "hello"}) + packet(0, 1, 2, 0, {})
    write("fuzz-packet-assembler", "requests", bytes([40, 1, len(requests)]) + requests)

    # MCUboot images: the McuBoot test fixtures (imgtool-made, 1.6 to 4 KiB).
    for image in sorted((ROOT / "Tests/McuBootTests/Fixtures/images").glob("*.bin")):
        write("fuzz-mcuboot-image", image.stem, image.read_bytes())

    # The simulator: request sequences a client sends (each buffer a two-byte length and the bytes).
    image = (ROOT / "Tests/McuBootTests/Fixtures/images/unsigned.bin").read_bytes()
    sha = hashlib.sha256(image).digest()
    upload = [packet(2, 1, 10, 1, {"off": 0, "len": len(image), "sha": sha, "image": 0, "data": image[:512], "upgrade": False})]
    upload += [packet(2, 1, 11 + i, 1, {"off": off, "data": image[off:off + 512]})
               for i, off in enumerate(range(512, len(image), 512))]
    sequences = {
        "echo": [packet(2, 0, 1, 0, {"d": "hello"}), packet(0, 0, 2, 0, {"d": "read"})],
        "os": [packet(0, 0, 1, 6, {}), packet(0, 0, 2, 7, {"format": "a"}), packet(0, 0, 3, 8, {"query": "mode"}),
               packet(0, 0, 4, 2, {}), packet(2, 0, 5, 4, {"datetime": "2024-01-02T03:04:05"}), packet(0, 0, 6, 4, {}),
               packet(0, 0, 7, 8, {})],
        "upload-test-reset-confirm": upload + [packet(0, 1, 40, 0, {}), packet(2, 0, 41, 5, {}), packet(0, 1, 42, 0, {}),
                                               packet(2, 1, 43, 0, {"confirm": True}), packet(2, 1, 44, 5, {"slot": 1}),
                                               packet(0, 1, 45, 6, {})],
        "settings": [packet(2, 3, 1, 0, {"name": "app/x", "val": b"\x01\x02"}), packet(0, 3, 2, 0, {"name": "app/x"}),
                     packet(2, 3, 3, 3, {}), packet(2, 3, 4, 1, {"name": "app/x"}), packet(0, 3, 5, 3, {}),
                     packet(2, 3, 6, 2, {})],
        "fs": [packet(2, 8, 1, 0, {"name": "/lfs1/a.txt", "off": 0, "len": 5, "data": b"hello"}),
               packet(0, 8, 2, 1, {"name": "/lfs1/a.txt"}), packet(0, 8, 3, 2, {"name": "/lfs1/a.txt", "type": "sha256"}),
               packet(0, 8, 4, 0, {"name": "/lfs1/a.txt", "off": 0}), packet(0, 8, 5, 3, {}), packet(2, 8, 6, 4, {})],
        "shell-stats-enum-log": [packet(2, 9, 1, 0, {"argv": ["fs", "ls", "/lfs1"]}), packet(0, 2, 2, 1, {}),
                                 packet(0, 2, 3, 0, {"name": "smp"}), packet(0, 10, 4, 0, {}), packet(0, 10, 5, 1, {}),
                                 packet(0, 10, 6, 2, {"index": 1}), packet(0, 10, 7, 3, {}), packet(0, 4, 8, 0, {}),
                                 packet(0, 4, 9, 5, {}), packet(2, 63, 10, 0, {})],
        "v1-and-concatenated": [packet(0, 1, 1, 0, {}, version=0), packet(2, 0, 2, 0, {"d": "a"}) + packet(2, 0, 3, 0, {"d": "b"}),
                                header(2, 0, 4, 0, 100) + b"\xa0"],
    }
    for name, buffers in sequences.items():
        write("fuzz-simulator", name, b"".join(piece(b) for b in buffers))

    # Upload answers: depth, packet size, then the answer to the parameters read and to each chunk.
    def answers(depth, size, payloads):
        return bytes([depth, size]) + b"".join(piece(p if isinstance(p, bytes) else cbor2.dumps(p)) for p in payloads)
    params = {"buf_size": 256, "buf_count": 4}
    chunk = 160 + 96 - 40  # roughly what a chunk carries in a 256-byte packet
    progress = [{"off": min(3000, chunk * (i + 1))} for i in range(20)]
    write("fuzz-upload-answers", "progress", answers(0, 160, [params] + progress))
    write("fuzz-upload-answers", "progress-deep", answers(2, 160, [params] + progress))
    write("fuzz-upload-answers", "stays", answers(0, 160, [params] + [{"off": 512}] * 20))
    write("fuzz-upload-answers", "backwards", answers(1, 160, [params] + [{"off": 1024}, {"off": 700}, {"off": 300}, {"off": 0}] * 4))
    write("fuzz-upload-answers", "busy", answers(0, 160, [params, {"rc": 10}, {"rc": 2}] + progress))
    write("fuzz-upload-answers", "errors", answers(0, 160, [{"rc": 8}, {"err": {"group": 1, "rc": 30}}]))
    write("fuzz-upload-answers", "done-at-once", answers(0, 160, [params, {"off": 3000, "match": True}]))
    write("fuzz-upload-answers", "malformed", answers(0, 160, [params, b"\xff", b"\xa1\x63off\x3a"]))


if __name__ == "__main__":
    main()
