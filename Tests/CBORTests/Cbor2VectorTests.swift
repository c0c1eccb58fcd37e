import CBOR
import SMPTestSupport
import Testing

/// The vectors of `Fixtures/cbor2-vectors.json`: values encoded by Python's cbor2 in canonical mode.
@Suite("cbor2 vectors")
struct Cbor2VectorTests {
    @Test("the fixture file holds at least 500 varied vectors")
    func fixtureIsComplete() throws {
        let file = try CBORFixtureFile.load()
        #expect(file.vectors.count >= 500)
        #expect(file.indefinite.count >= 10)
        // The variety the acceptance criteria ask for is really there.
        func contains(_ predicate: (CBORValue) -> Bool) -> Bool {
            file.vectors.contains { v in anyItem(v.value, predicate) }
        }
        #expect(contains { $0 == .unsigned(UInt64.max) })
        #expect(contains { $0 == .negative(UInt64.max) })
        #expect(contains { if case .bytes(let b) = $0 { b.count > 65535 } else { false } })
        #expect(contains { if case .text(let s) = $0 { s.utf8.count > 65535 } else { false } })
        #expect(contains { if case .tagged(_, .tagged) = $0 { true } else { false } })
        #expect(contains { if case .float(let d) = $0 { d.isNaN } else { false } })
        #expect(contains { if case .float(let d) = $0 { d.isZero && d.sign == .minus } else { false } })
        #expect(contains { if case .float(let d) = $0 { d.isSubnormal == false && Float16(d).isSubnormal && Double(Float16(d)) == d } else { false } })
        #expect(contains { $0 == .undefined })
        #expect(contains { if case .simple = $0 { true } else { false } })
        // Every head length of an integer argument: 0–23, 1, 2, 4 and 8 bytes, for both signs.
        let heads = Set(file.vectors.compactMap { v -> UInt8? in
            switch v.value {
            case .unsigned, .negative: return v.bytes[0]
            default: return nil
            }
        }.map { $0 & 0x1f >= 24 ? $0 : $0 & 0xe0 })
        #expect(heads.isSuperset(of: [0x00, 0x18, 0x19, 0x1a, 0x1b, 0x20, 0x38, 0x39, 0x3a, 0x3b]))
    }

    @Test("every cbor2 vector decodes to exactly the described structure")
    func decodesToDescribedStructure() throws {
        let file = try CBORFixtureFile.load()
        var failures = 0
        for vector in file.vectors {
            do {
                let decoded = try CBORReader().decode(vector.bytes)
                if !identical(decoded, vector.value) {
                    failures += 1
                    Issue.record("\(vector): decoded \(decoded), expected \(vector.value)")
                }
            } catch {
                failures += 1
                Issue.record("\(vector): \(error)")
            }
            if failures > 20 { break }
        }
    }

    @Test("CBORWriter re-encodes every described structure byte for byte as cbor2 did")
    func encodesLikeCbor2() throws {
        let file = try CBORFixtureFile.load()
        var failures = 0
        for vector in file.vectors {
            let encoded = CBORWriter().encode(vector.value)
            if encoded != vector.bytes {
                failures += 1
                Issue.record("\(vector.value): wrote \(HexText.string(encoded.prefix(64))), cbor2 wrote \(vector)")
            }
            if failures > 20 { break }
        }
    }

    @Test("decodePrefix of a vector followed by other bytes reads just the vector")
    func decodePrefixStopsAtItemEnd() throws {
        let file = try CBORFixtureFile.load()
        for vector in file.vectors.prefix(200) {
            let (value, consumed) = try CBORReader().decodePrefix(vector.bytes + [0x01, 0xff])
            #expect(consumed == vector.bytes.count, "\(vector)")
            #expect(identical(value, vector.value), "\(vector)")
            #expect(throws: CBORDecodingError.trailingBytes(count: 2)) { try CBORReader().decode(vector.bytes + [0x01, 0xff]) }
        }
    }

    @Test("the indefinite-length vectors decode to the same structure as their definite forms")
    func indefiniteVectorsDecode() throws {
        let file = try CBORFixtureFile.load()
        for vector in file.indefinite {
            let decoded = try CBORReader().decode(vector.bytes)
            #expect(identical(decoded, vector.value), "\(vector): decoded \(decoded)")
            // The value model does not keep the framing: re-encoded definite, it reads back the same.
            let definite = CBORWriter(sortsMapKeys: false).encode(decoded)
            #expect(definite.count < vector.bytes.count, "\(vector)")
            #expect(identical(try CBORReader().decode(definite), vector.value), "\(vector)")
        }
    }

    @Test("a writer with indefinite-length containers reproduces the hand-built container vectors")
    func indefiniteWriterMatchesHandBuilt() throws {
        let file = try CBORFixtureFile.load()
        // These vectors frame every array and map with indefinite length and no string in chunks:
        // exactly what the writer emits with `usesIndefiniteLengthContainers` (keys kept in order).
        let notes: Set = [
            "empty indefinite array", "empty indefinite map", "array", "map in non-canonical order",
            "echo response, Zephyr form", "v2 group error, Zephyr form", "upload response, Zephyr form",
        ]
        let writer = CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: true)
        let chosen = file.indefinite.filter { notes.contains($0.note ?? "") }
        #expect(chosen.count == notes.count)
        for vector in chosen {
            #expect(writer.encode(vector.value) == vector.bytes, "\(vector)")
        }
    }
}

/// Whether `value` or any item nested in it satisfies `predicate`.
func anyItem(_ value: CBORValue, _ predicate: (CBORValue) -> Bool) -> Bool {
    if predicate(value) { return true }
    switch value {
    case .array(let items): return items.contains { anyItem($0, predicate) }
    case .map(let entries): return entries.contains { anyItem($0.key, predicate) || anyItem($0.value, predicate) }
    case .tagged(_, let inner): return anyItem(inner, predicate)
    default: return false
    }
}
