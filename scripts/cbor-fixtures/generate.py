#!/usr/bin/env python3
"""Generates Tests/CBORTests/Fixtures/cbor2-vectors.json: CBOR test vectors encoded by cbor2.

Run from the repository root with the bootstrap venv:

    .venv/bin/python scripts/cbor-fixtures/generate.py

The output is deterministic (fixed random seed) and committed; the Swift tests read it and check
that `CBORReader` decodes every vector to exactly the described structure and that `CBORWriter`
re-encodes the structure byte for byte as cbor2 did (`cbor2.dumps(v, canonical=True)`).

Description format (one JSON object with exactly one key per item):
    {"u": "<decimal>"}            major 0, unsigned integer
    {"n": "<decimal>"}            major 1, the CBOR argument n; the integer is -1 - n
    {"b": "<hex>"}                byte string
    {"t": "<text>"}               text string
    {"a": [item, ...]}            array
    {"m": [[key, value], ...]}    map, entries in the order cbor2 wrote them
    {"tag": "<decimal>", "v": item}
    {"bool": true|false}, {"null": 0}, {"undefined": 0}
    {"s": <0-19 or 32-255>}       other simple value
    {"f": "<16 hex digits>"}      float, as the bit pattern of the equal IEEE double

Besides the cbor2 vectors ("vectors"), the file holds "indefinite" vectors: hand-built encodings
that use indefinite-length arrays, maps and chunked strings (cbor2 never emits those), each with
the structure it must decode to. They are decode-only. Last, "smp" holds the SMP payloads of
smp-reference §8 (and a few more) as cbor2 encodes them in canonical order, by name, for the
Codable tests.

Every cbor2 vector is checked here too: a small independent CBOR walker re-reads cbor2's bytes
and must find the described structure, so the description is what cbor2 emitted.
"""

import importlib.metadata
import json
import math
import os
import random
import struct
import sys

import cbor2

SEED = 0x5EED_CB02
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "CBORTests", "Fixtures", "cbor2-vectors.json")

# ---------------------------------------------------------------------------------------------
# Value model: tuples, so that maps keep their order and floats/ints/simple values stay distinct.
#   ("u", n) ("n", arg) ("b", bytes) ("t", str) ("a", [..]) ("m", [(k, v), ..]) ("tag", n, v)
#   ("bool", b) ("null",) ("undefined",) ("s", n) ("f", float)


def U(n):
    return ("u", n)


def I(x):
    return ("u", x) if x >= 0 else ("n", -1 - x)


def to_python(v):
    """The Python object that cbor2 encodes as this value."""
    kind = v[0]
    if kind == "u":
        return v[1]
    if kind == "n":
        return -1 - v[1]
    if kind == "b":
        return bytes(v[1])
    if kind == "t":
        return v[1]
    if kind == "a":
        return [to_python(x) for x in v[1]]
    if kind == "m":
        d = {}
        for k, x in v[1]:
            pk = to_python(k)
            assert pk not in d, "duplicate map key"
            d[pk] = to_python(x)
        return d
    if kind == "tag":
        return cbor2.CBORTag(v[1], to_python(v[2]))
    if kind == "bool":
        return v[1]
    if kind == "null":
        return None
    if kind == "undefined":
        return cbor2.undefined
    if kind == "s":
        return cbor2.CBORSimpleValue(v[1])
    if kind == "f":
        return v[1]
    raise ValueError(kind)


def canonical_key(k):
    enc = cbor2.dumps(to_python(k), canonical=True)
    return (len(enc), enc)


def describe(v, sort_maps=True):
    """The JSON description; maps sorted as cbor2's canonical mode writes them."""
    kind = v[0]
    if kind == "u":
        return {"u": str(v[1])}
    if kind == "n":
        return {"n": str(v[1])}
    if kind == "b":
        return {"b": bytes(v[1]).hex()}
    if kind == "t":
        return {"t": v[1]}
    if kind == "a":
        return {"a": [describe(x, sort_maps) for x in v[1]]}
    if kind == "m":
        entries = list(v[1])
        if sort_maps:
            entries.sort(key=lambda e: canonical_key(e[0]))
        return {"m": [[describe(k, sort_maps), describe(x, sort_maps)] for k, x in entries]}
    if kind == "tag":
        return {"tag": str(v[1]), "v": describe(v[2], sort_maps)}
    if kind == "bool":
        return {"bool": v[1]}
    if kind == "null":
        return {"null": 0}
    if kind == "undefined":
        return {"undefined": 0}
    if kind == "s":
        return {"s": v[1]}
    if kind == "f":
        return {"f": struct.pack(">d", v[1]).hex()}
    raise ValueError(kind)


# ---------------------------------------------------------------------------------------------
# An independent walker over the bytes (definite and indefinite), producing descriptions.


class Walker:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def take(self, n):
        out = self.data[self.pos:self.pos + n]
        assert len(out) == n, "truncated"
        self.pos += n
        return out

    def argument(self, info):
        if info < 24:
            return info
        if info == 24:
            return self.byte()
        if info == 25:
            return struct.unpack(">H", self.take(2))[0]
        if info == 26:
            return struct.unpack(">I", self.take(4))[0]
        if info == 27:
            return struct.unpack(">Q", self.take(8))[0]
        if info == 31:
            return None
        raise ValueError("reserved additional information")

    def item(self):
        head = self.byte()
        major, info = head >> 5, head & 0x1F
        if major == 7:
            if info < 20:
                return {"s": info}
            if info == 20:
                return {"bool": False}
            if info == 21:
                return {"bool": True}
            if info == 22:
                return {"null": 0}
            if info == 23:
                return {"undefined": 0}
            if info == 24:
                return {"s": self.byte()}
            if info == 25:
                d = struct.unpack(">e", self.take(2))[0]
            elif info == 26:
                d = struct.unpack(">f", self.take(4))[0]
            elif info == 27:
                d = struct.unpack(">d", self.take(8))[0]
            else:
                raise ValueError("unexpected head %02x" % head)
            return {"f": struct.pack(">d", d).hex()}
        n = self.argument(info)
        if major == 0:
            return {"u": str(n)}
        if major == 1:
            return {"n": str(n)}
        if major in (2, 3):
            if n is None:
                chunks = b""
                while self.data[self.pos] != 0xFF:
                    c = self.item()
                    chunks += bytes.fromhex(c["b"]) if major == 2 else c["t"].encode("utf-8")
                self.pos += 1
            else:
                chunks = self.take(n)
            return {"b": chunks.hex()} if major == 2 else {"t": chunks.decode("utf-8")}
        if major == 4:
            items = []
            while (n is None and self.data[self.pos] != 0xFF) or (n is not None and len(items) < n):
                items.append(self.item())
            if n is None:
                self.pos += 1
            return {"a": items}
        if major == 5:
            entries = []
            while (n is None and self.data[self.pos] != 0xFF) or (n is not None and len(entries) < n):
                entries.append([self.item(), self.item()])
            if n is None:
                self.pos += 1
            return {"m": entries}
        if major == 6:
            return {"tag": str(n), "v": self.item()}
        raise ValueError(head)


def walk(data):
    w = Walker(data)
    d = w.item()
    assert w.pos == len(data), "trailing bytes"
    return d


def same(a, b):
    """Description equality where NaN floats are equal whatever their payload."""
    if isinstance(a, dict) and isinstance(b, dict):
        if "f" in a and "f" in b:
            x = struct.unpack(">d", bytes.fromhex(a["f"]))[0]
            y = struct.unpack(">d", bytes.fromhex(b["f"]))[0]
            return a["f"] == b["f"] or (math.isnan(x) and math.isnan(y))
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


# ---------------------------------------------------------------------------------------------
# The values.

rng = random.Random(SEED)


def int_values():
    vals = []
    # Every head size and its edges, positive and negative.
    edges = [0, 1, 10, 23, 24, 25, 100, 254, 255, 256, 257, 1000, 65534, 65535, 65536, 65537,
             1000000, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1, 2**32, 2**32 + 1, 10**12,
             2**53, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1]
    for e in edges:
        vals.append(I(e))
        if e > 0:
            vals.append(I(-e))
    vals.append(I(-(2**64)))          # the most negative CBOR integer: 0x3b ff..ff
    vals.append(I(-(2**64) + 1))
    # Random ones inside each head size.
    for lo, hi in [(0, 23), (24, 255), (256, 65535), (65536, 2**32 - 1), (2**32, 2**64 - 1)]:
        for _ in range(4):
            x = rng.randint(lo, hi)
            vals.append(I(x))
            vals.append(I(-1 - x))
    return vals


def float_values():
    f = []
    specials = [0.0, -0.0, 1.0, -1.0, 1.5, 0.5, 0.1, 1.1, 100000.0, 65504.0, 65505.0, 65536.0,
                -4.0, 3.4028234663852886e38, 1.0e300, -1.0e300, 5.0e-324,
                float("inf"), float("-inf"), float("nan"),
                # half subnormals: 2^-24 (smallest), 2^-23, 3*2^-24, largest subnormal, and negatives
                2.0**-24, 2.0**-23, 3 * 2.0**-24, 1023 * 2.0**-24, -(2.0**-24), -(5 * 2.0**-24),
                2.0**-14,                      # smallest normal half
                2.0**-25,                      # below half range: single
                1.0e-7, 2.0**-149, 2.0**-126,  # single subnormal / smallest normal
                2.0**-150,                     # below single range: double
                3.4028235677973366e38,         # just above float max: double
                16777217.0,                    # needs double (2^24 + 1)
                16777216.0, 0.333251953125,    # exact in single / half
                ]
    f += specials
    # Random values of each width: exact halves, exact singles, doubles.
    for _ in range(12):
        f.append(struct.unpack(">e", struct.pack(">H", rng.choice([rng.randrange(0x0001, 0x7C00), rng.randrange(0x8001, 0xFC00)])))[0])
    for _ in range(12):
        bits = rng.randrange(0x00000001, 0x7F800000) | (0x80000000 if rng.random() < 0.5 else 0)
        f.append(struct.unpack(">f", struct.pack(">I", bits))[0])
    for _ in range(12):
        bits = rng.randrange(1, 0x7FF0000000000000) | (0x8000000000000000 if rng.random() < 0.5 else 0)
        f.append(struct.unpack(">d", struct.pack(">Q", bits))[0])
    return [("f", x) for x in f]


def random_text(n):
    alphabet = "abcxyzABC019 _-/.:\"\\\n\té€ü中文字😀𝄞\u0000\u007f\u0080\u07ff\u0800\uffff"
    return "".join(rng.choice(alphabet) for _ in range(n))


def string_values():
    v = []
    v += [("b", b""), ("b", b"\x00"), ("b", bytes(range(24))), ("b", bytes(range(256))),
          ("b", bytes(rng.randrange(256) for _ in range(300))),
          ("b", bytes(rng.randrange(256) for _ in range(70000)))]           # > 65535: 4-byte length
    v += [("t", ""), ("t", "a"), ("t", "IETF"), ("t", "\"\\"), ("t", "\u00fc"), ("t", "\u6c34"),
          ("t", "\U00010151"), ("t", "héllo wörld ✓"), ("t", "x" * 23), ("t", "y" * 24),
          ("t", "z" * 255), ("t", "w" * 256), ("t", random_text(40)), ("t", random_text(300)),
          ("t", "\u00e9" * 35000)]                                          # 70000 UTF-8 bytes
    for n in [1, 5, 23, 24, 100, 1000]:
        v.append(("b", bytes(rng.randrange(256) for _ in range(n))))
        v.append(("t", random_text(n)))
    return v


def simple_values():
    v = [("bool", False), ("bool", True), ("null",), ("undefined",)]
    v += [("s", n) for n in [0, 1, 15, 16, 19, 32, 33, 100, 128, 254, 255]]
    return v


def tag_values():
    return [
        ("tag", 0, ("t", "2013-03-21T20:04:00Z")),
        ("tag", 1, I(1363896240)),
        ("tag", 1, ("f", 1363896240.5)),
        ("tag", 23, ("b", b"\x01\x02\x03\x04")),
        ("tag", 24, ("b", b"\x64\x49\x45\x54\x46")),
        ("tag", 32, ("t", "http://www.example.com")),
        ("tag", 255, U(1)), ("tag", 256, U(2)), ("tag", 65535, ("null",)), ("tag", 65536, U(3)),
        ("tag", 2**32 - 1, ("a", [])), ("tag", 2**32, ("m", [])), ("tag", 2**64 - 1, ("bool", True)),
        ("tag", 6, ("tag", 7, ("tag", 8, ("t", "nested tags")))),
        ("tag", 1000, ("a", [("tag", 1001, U(1)), ("tag", 1002, ("m", [(U(1), ("tag", 1003, ("t", "x")))]))])),
        ("tag", 55799, ("m", [(("t", "a"), U(1))])),
    ]


def container_values():
    v = [("a", []), ("m", []),
         ("a", [U(1), U(2), U(3)]),
         ("a", [U(1), ("a", [U(2), U(3)]), ("a", [U(4), U(5)])]),
         ("a", [U(i) for i in range(1, 26)]),                         # 25 items: 1-byte length
         ("a", [U(i % 7) for i in range(300)]),                       # 2-byte length
         ("m", [(U(1), U(2)), (U(3), U(4))]),
         ("m", [(("t", "a"), U(1)), (("t", "b"), ("a", [U(2), U(3)]))]),
         ("a", [("t", "a"), ("m", [(("t", "b"), ("t", "c"))])]),
         ("m", [(("t", k), ("t", k.upper())) for k in "abcde"]),
         # Keys whose canonical order differs from insertion and from plain lexicographic order.
         ("m", [(("t", "aa"), U(1)), (("t", "b"), U(2)), (U(100), U(3)), (U(0), U(4)), (I(-1), U(5)),
                (I(-100), U(6)), (("t", ""), U(7)), (I(1000), U(8)), (("t", "z"), U(9))]),
         ("m", [(I(i), U(i)) for i in range(30)]),                    # 30 entries: 1-byte length
         ("m", [(("t", "k%d" % i), U(i)) for i in range(300)]),       # 2-byte length
         ]
    # Deep nesting, well below the reader's default limit of 128.
    deep = U(0)
    for i in range(100):
        deep = ("a", [deep]) if i % 3 else ("m", [(("t", "d"), deep)])
    v.append(deep)
    return v


def random_scalar():
    r = rng.random()
    if r < 0.25:
        return I(rng.choice([rng.randint(-30, 30), rng.randint(-70000, 70000), rng.randint(-(2**40), 2**40),
                             rng.randint(-(2**64), 2**64 - 1)]))
    if r < 0.40:
        return ("t", random_text(rng.choice([0, 1, 3, 10, 30])))
    if r < 0.55:
        return ("b", bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 4, 20, 40]))))
    if r < 0.70:
        return ("f", rng.choice([rng.uniform(-1e6, 1e6), float(rng.randint(-1000, 1000)) / 4, 0.0, -0.0,
                                 float("inf"), float("nan"), 2.0**-24 * rng.randint(1, 1023)]))
    if r < 0.80:
        return rng.choice([("bool", False), ("bool", True), ("null",), ("undefined",)])
    if r < 0.85:
        return ("s", rng.choice(list(range(0, 20)) + list(range(32, 256))))
    return ("tag", rng.choice([2**16, 40, 1234, 2**33, 2**64 - 1, 12]), random_scalar())


def random_key(used):
    while True:
        k = I(rng.randint(-500, 500)) if rng.random() < 0.4 else ("t", random_text(rng.choice([0, 1, 2, 3, 6])))
        p = to_python(k)
        if p not in used:
            used.add(p)
            return k


def random_value(depth):
    if depth <= 0 or rng.random() < 0.3:
        return random_scalar()
    r = rng.random()
    if r < 0.4:
        return ("a", [random_value(depth - 1) for _ in range(rng.randint(0, 6))])
    if r < 0.85:
        used = set()
        return ("m", [(random_key(used), random_value(depth - 1)) for _ in range(rng.randint(0, 6))])
    return ("tag", rng.choice([1, 37, 300, 70000, 2**40]), random_value(depth - 1))


def values():
    v = int_values() + float_values() + string_values() + simple_values() + tag_values() + container_values()
    while len(v) < 620:
        v.append(random_value(rng.randint(1, 5)))
    # After the random ones (they take nothing from rng): text keys whose length heads differ
    # (23, 24, 255 and 256 bytes, multi-byte characters), where canonical order is by encoded key.
    long_keys = ["k" * 256, "b" * 24, "a" * 255, "z" * 23, "\u00fc" * 12, "a" * 24, "\u6c34", "yy", "\u00fc" * 11 + "a"]
    v.append(("m", [(("t", key), U(n)) for n, key in enumerate(long_keys)]))
    return v


# ---------------------------------------------------------------------------------------------
# Indefinite-length vectors, built by hand from parts whose encoding is known.


def enc(v):
    return cbor2.dumps(to_python(v), canonical=True)


def indefinite_vectors():
    out = []

    def add(hexparts, value, note):
        data = b"".join(bytes.fromhex(p) if isinstance(p, str) else p for p in hexparts)
        # Hand-built maps keep the order written; a dict is an already made description.
        d = value if isinstance(value, dict) else describe(value, sort_maps=False)
        assert same(walk(data), d), note
        out.append({"hex": data.hex(), "value": d, "note": note})

    add(["9f", "ff"], ("a", []), "empty indefinite array")
    add(["bf", "ff"], ("m", []), "empty indefinite map")
    add(["5f", "ff"], ("b", b""), "empty chunked byte string")
    add(["7f", "ff"], ("t", ""), "empty chunked text string")
    add(["9f", enc(U(1)), enc(U(2)), enc(U(3)), "ff"], ("a", [U(1), U(2), U(3)]), "array")
    add(["5f", "4201 02", "43030405", "40", "ff"], ("b", b"\x01\x02\x03\x04\x05"), "byte chunks incl. empty")
    add(["7f", "657374726561", "646d696e67", "ff"], ("t", "streaming"), "text chunks")
    add(["7f", "62c3bc", "63e6b0b4", "ff"], ("t", "\u00fc\u6c34"), "text chunks of multi-byte characters")
    add(["bf", enc(("t", "z")), enc(U(1)), enc(("t", "a")), enc(U(2)), "ff"],
        ("m", [(("t", "z"), U(1)), (("t", "a"), U(2))]), "map in non-canonical order")
    add(["bf", enc(("t", "d")), "9f", enc(I(-5)), "5f", "41aa", "41bb", "ff", "ff", enc(("t", "e")), "bf", "ff", "ff"],
        ("m", [(("t", "d"), ("a", [I(-5), ("b", b"\xaa\xbb")])), (("t", "e"), ("m", []))]),
        "nested indefinite containers and strings")
    add(["9f", "01", "82", "02", "03", "9f", "04", "05", "ff", "ff"],
        ("a", [U(1), ("a", [U(2), U(3)]), ("a", [U(4), U(5)])]), "RFC 8949 mix of definite and indefinite")
    add(["83", "01", "9f", "02", "03", "ff", "82", "04", "05"],
        ("a", [U(1), ("a", [U(2), U(3)]), ("a", [U(4), U(5)])]), "indefinite inside definite")
    add(["c1", "9f", enc(("f", 1.5)), "f97c00", "f6", "f7", "f0", "f8ff", "ff"],
        ("tag", 1, ("a", [("f", 1.5), ("f", float("inf")), ("null",), ("undefined",), ("s", 16), ("s", 255)])),
        "tagged indefinite array of simple values")
    add(["bf", "63726571", "bf", "6164", "7f", "6168", "62656c", "626c6f", "ff", "ff", "ff"],
        ("m", [(("t", "req"), ("m", [(("t", "d"), ("t", "hello"))]))]), "Zephyr-like nested map with chunked text")
    # The SMP examples of smp-reference §8 as Zephyr emits them.
    add(["bf", "6172", "6568656c6c6f", "ff"], ("m", [(("t", "r"), ("t", "hello"))]), "echo response, Zephyr form")
    add(["bf", "63657272", "bf", "6567726f7570", "01", "627263", "08", "ff", "ff"],
        ("m", [(("t", "err"), ("m", [(("t", "group"), U(1)), (("t", "rc"), U(8))]))]), "v2 group error, Zephyr form")
    add(["bf", "636f6666", "1840", "ff"], ("m", [(("t", "off"), U(64))]), "upload response, Zephyr form")
    # Random indefinite arrays/maps around cbor2-encoded members.
    for _ in range(12):
        items = [random_value(2) for _ in range(rng.randint(0, 5))]
        add(["9f"] + [enc(x) for x in items] + ["ff"], {"a": [describe(x) for x in items]}, "random indefinite array")
        used = set()
        entries = [(random_key(used), random_value(2)) for _ in range(rng.randint(0, 5))]
        parts = ["bf"]
        for k, x in entries:
            parts += [enc(k), enc(x)]
        add(parts + ["ff"], {"m": [[describe(k), describe(x)] for k, x in entries]}, "random indefinite map")
        blob = bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
        cuts = sorted(rng.sample(range(len(blob) + 1), min(3, len(blob) + 1)))
        chunks = [blob[a:b] for a, b in zip([0] + cuts, cuts + [len(blob)])]
        add(["5f"] + [cbor2.dumps(c) for c in chunks] + ["ff"], ("b", blob), "random byte chunks")
    return out


# ---------------------------------------------------------------------------------------------
# SMP payloads (smp-reference §8) encoded by cbor2 in canonical order, for the Codable tests.

IMAGE_HEADER = bytes.fromhex("3db8f39600000000200000000002000000000000010203000400000000000000")
UPLOAD_SHA = bytes.fromhex("c5a5fca9c90a7292439ba4a5aaa19d76c0b2d59672073efa89a3ae430aa5e2f7")
IMAGE_HASH = bytes.fromhex("150dab841b12b517b5421a0c97ebbb3f2f4df1f12f11f36906eb52301ffb53c5")


def smp_payloads():
    first64 = IMAGE_HEADER + bytes(range(32))
    upload = {"image": 0, "len": 584, "off": 0, "sha": UPLOAD_SHA, "data": first64, "upgrade": False}
    # The §8.2 request payload, in the order the reference lists it, is cbor2's non-canonical output.
    reference = ("a6" "65696d616765" "00" "636c656e" "190248" "636f6666" "00" "63736861" "5820" + UPLOAD_SHA.hex()
                 + "6464617461" "5840" + first64.hex() + "67757067726164" "65" "f4")
    assert cbor2.dumps(upload).hex() == reference and len(reference) == 2 * 138
    payloads = {
        "echo request": {"d": "hello"},
        "echo response": {"r": "hello"},
        "upload first chunk": upload,
        "upload next chunk": {"off": 64, "data": bytes(range(0x20, 0x30))},
        "upload response": {"off": 64},
        "upload final response": {"off": 584, "match": True},
        "image state response": {
            "images": [
                {"image": 0, "slot": 0, "version": "1.2.3.4", "hash": IMAGE_HASH,
                 "bootable": True, "pending": False, "confirmed": True, "active": True, "permanent": False},
                {"image": 0, "slot": 1, "version": "1.3.0", "hash": bytes(range(32)),
                 "bootable": True, "pending": True, "confirmed": False, "active": False, "permanent": False},
            ],
            "splitStatus": 0,
        },
        "group error response": {"err": {"group": 1, "rc": 8}},
        "mcumgr params response": {"buf_size": 2475, "buf_count": 4},
    }
    return [{"name": name, "hex": cbor2.dumps(value, canonical=True).hex()} for name, value in payloads.items()]


def main():
    vectors = []
    for v in values():
        data = cbor2.dumps(to_python(v), canonical=True)
        d = describe(v)
        w = walk(data)
        if not same(w, d):
            sys.exit("description differs from what cbor2 wrote for %r:\n%s\n%s" % (v, w, d))
        vectors.append({"hex": data.hex(), "value": d})
    doc = {
        "generator": "scripts/cbor-fixtures/generate.py",
        "cbor2": importlib.metadata.version("cbor2"),
        "seed": SEED,
        "encoding": "cbor2.dumps(value, canonical=True)",
        "format": "see the docstring of scripts/cbor-fixtures/generate.py",
        "vectors": vectors,
        "indefinite": indefinite_vectors(),
        "smp": smp_payloads(),
    }
    # One vector per line, so that a regenerated file diffs readably.
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("{\n")
        for key in ("generator", "cbor2", "seed", "encoding", "format"):
            f.write("%s: %s,\n" % (json.dumps(key), json.dumps(doc[key])))
        for i, key in enumerate(("vectors", "indefinite", "smp")):
            f.write("%s: [\n" % json.dumps(key))
            f.write(",\n".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) for x in doc[key]))
            f.write("\n]%s\n" % ("," if i < 2 else ""))
        f.write("}\n")
    json.load(open(OUT, encoding="utf-8"))
    print("wrote %d vectors and %d indefinite-length vectors to %s"
          % (len(vectors), len(doc["indefinite"]), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
