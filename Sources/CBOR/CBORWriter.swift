import CCBOR

/// Writes `CBORValue`s as bytes, every head through libcbor's encoding API.
///
/// Output is in preferred form: the shortest integer and length heads, and each float in the
/// shortest of half, single and double precision that keeps its value exactly.
public struct CBORWriter: Sendable {
    /// Sort map entries by their encoded keys, shortest first (RFC 7049 §3.9 canonical order, as `cbor2` does).
    public var sortsMapKeys: Bool
    /// Frame arrays and maps with indefinite length (`0x9f`/`0xbf` … `0xff`), as a default Zephyr build does.
    public var usesIndefiniteLengthContainers: Bool

    /// Makes a writer; by default canonical (sorted keys, definite lengths).
    public init(sortsMapKeys: Bool = true, usesIndefiniteLengthContainers: Bool = false) {
        self.sortsMapKeys = sortsMapKeys
        self.usesIndefiniteLengthContainers = usesIndefiniteLengthContainers
    }

    /// Encodes one item.
    public func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.capacityHint(value))
        append(value, to: &out)
        return out
    }

    /// At least the encoded size of `value` (9 bytes per head, the longest there is), so that
    /// ``encode(_:)`` allocates its output once.
    static func capacityHint(_ value: CBORValue) -> Int {
        switch value {
        case .bytes(let b): return 9 + b.count
        case .text(let s): return 9 + s.utf8.count
        case .array(let items): return items.reduce(9) { $0 + capacityHint($1) }
        case .map(let entries): return entries.reduce(9) { $0 + capacityHint($1.key) + capacityHint($1.value) }
        case .tagged(_, let inner): return 9 + capacityHint(inner)
        default: return 9
        }
    }

    /// Appends the encoding of `value` to `out`.
    public func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n):
            head(&out) { cbor_encode_uint(n, $0, $1) }
        case .negative(let n):
            head(&out) { cbor_encode_negint(n, $0, $1) }
        case .bytes(let b):
            out.reserveCapacity(out.count + b.count + 9)
            appendBytesHead(count: b.count, to: &out)
            out.append(contentsOf: b)
        case .text(let s):
            var s = s
            s.withUTF8 { utf8 in
                head(&out) { cbor_encode_string_start(utf8.count, $0, $1) }
                out.append(contentsOf: utf8)
            }
        case .array(let items):
            if usesIndefiniteLengthContainers {
                head(&out) { cbor_encode_indef_array_start($0, $1) }
                for item in items { append(item, to: &out) }
                head(&out) { cbor_encode_break($0, $1) }
            } else {
                head(&out) { cbor_encode_array_start(items.count, $0, $1) }
                for item in items { append(item, to: &out) }
            }
        case .map(let entries):
            appendMap(entries, to: &out)
        case .tagged(let tag, let inner):
            head(&out) { cbor_encode_tag(tag, $0, $1) }
            append(inner, to: &out)
        case .bool(let b):
            head(&out) { cbor_encode_bool(b, $0, $1) }
        case .null:
            head(&out) { cbor_encode_null($0, $1) }
        case .undefined:
            head(&out) { cbor_encode_undef($0, $1) }
        case .simple(let v):
            head(&out) { cbor_encode_ctrl(v, $0, $1) }
        case .float(let d):
            appendFloat(d, to: &out)
        }
    }

    /// Appends the head of a byte string of `count` bytes (the bytes themselves follow it).
    private func appendBytesHead(count: Int, to out: inout [UInt8]) {
        head(&out) { cbor_encode_bytestring_start(count, $0, $1) }
    }

    private func appendMap(_ entries: [(key: CBORValue, value: CBORValue)], to out: inout [UInt8]) {
        if usesIndefiniteLengthContainers {
            head(&out) { cbor_encode_indef_map_start($0, $1) }
        } else {
            head(&out) { cbor_encode_map_start(entries.count, $0, $1) }
        }
        for entry in sortsMapKeys && entries.count > 1 ? canonicalOrder(entries) : entries {
            append(entry.key, to: &out)
            append(entry.value, to: &out)
        }
        if usesIndefiniteLengthContainers {
            head(&out) { cbor_encode_break($0, $1) }
        }
    }

    /// The entries sorted by their encoded keys, shortest first, then bytewise. Text keys (all of
    /// SMP's) are compared without encoding them: a text key's encoding is its length head, which
    /// grows with the length, then its UTF-8 bytes, so shorter keys come first and keys of one
    /// length compare by their bytes; entries already in that order (a request map built so, as
    /// upload chunks are) are returned as they are, without a sorted copy. Other keys are encoded
    /// to be compared.
    private func canonicalOrder(_ entries: [(key: CBORValue, value: CBORValue)]) -> [(key: CBORValue, value: CBORValue)] {
        let allText = entries.allSatisfy { if case .text = $0.key { true } else { false } }
        guard allText else {
            let keyed = entries.map { (key: encode($0.key), entry: $0) }
            return keyed.sorted { a, b in
                a.key.count != b.key.count ? a.key.count < b.key.count : a.key.lexicographicallyPrecedes(b.key)
            }.map(\.entry)
        }
        if zip(entries, entries.dropFirst()).allSatisfy({ Self.textKeyPrecedes($0.key, $1.key) }) { return entries }
        return entries.sorted { a, b in Self.textKeyPrecedes(a.key, b.key) }
    }

    /// Canonical order of two text keys: shorter first, then by their UTF-8 bytes (false unless both are text).
    private static func textKeyPrecedes(_ a: CBORValue, _ b: CBORValue) -> Bool {
        guard case .text(let x) = a, case .text(let y) = b else { return false }
        let (xCount, yCount) = (x.utf8.count, y.utf8.count)
        return xCount != yCount ? xCount < yCount : x.utf8.lexicographicallyPrecedes(y.utf8)
    }

    private func appendFloat(_ d: Double, to out: inout [UInt8]) {
        if d.isNaN || Double(Float16(d)) == d {
            let start = out.count
            head(&out) { cbor_encode_half(Float(d), $0, $1) }
            // libcbor 0.8 rounds half-precision subnormals to their top bit; where that lost bits,
            // put the exact ones into the two payload bytes libcbor laid out.
            let bits = Float16(d).bitPattern
            if !d.isNaN, out[start + 1] != UInt8(bits >> 8) || out[start + 2] != UInt8(bits & 0xff) {
                out[start + 1] = UInt8(bits >> 8)
                out[start + 2] = UInt8(bits & 0xff)
            }
        } else if Double(Float(d)) == d {
            head(&out) { cbor_encode_single(Float(d), $0, $1) }
        } else {
            head(&out) { cbor_encode_double(d, $0, $1) }
        }
    }

    /// Runs one libcbor head encoder into a 9-byte scratch area and appends what it wrote.
    @inline(__always)
    private func head(_ out: inout [UInt8], _ encoder: (UnsafeMutablePointer<UInt8>, Int) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 9) { scratch in
            let written = encoder(scratch.baseAddress!, 9)
            precondition(written > 0, "libcbor wrote no head into a 9-byte buffer")
            out.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress, count: written))
        }
    }
}

extension CBORValue {
    /// The canonical (preferred-form, sorted-keys, definite-length) encoding of this item.
    public var cborBytes: [UInt8] { CBORWriter().encode(self) }
}
