import SMPTestSupport
import CBOR
import Foundation
import SMP
import SMPTestTraits
import Testing

/// The CBOR fixture vectors (hex only), shared with CBORTests.
private struct VectorFile: Decodable {
    struct Vector: Decodable { let hex: String }
    let vectors: [Vector]
    let indefinite: [Vector]

    static func load() throws -> [[UInt8]] {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CBORTests/Fixtures/cbor2-vectors.json")
        let file = try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url))
        return (file.vectors + file.indefinite).map { HexText.bytes($0.hex) }
    }
}

/// A typed response with fields of many kinds, for the Codable path.
private struct FuzzResponse: Decodable {
    struct Slot: Decodable {
        var slot: Int
        var version: String?
        var hash: Data?
        var active: Bool?
    }
    struct Err: Decodable {
        var group: UInt16
        var rc: Int
    }
    var off: UInt32?
    var len: Int64?
    var data: Data?
    var r: String?
    var rc: Int?
    var err: Err?
    var images: [Slot]?
    var match: Bool?
    var f: Double?
    var any: CBORValue?
}

/// The packets of smp-reference §8, as a device or a client sends them.
let referencePackets: [[UInt8]] = [
    "0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f",
    "0b 00 00 09 00 00 42 00 a1 61 72 65 68 65 6c 6c 6f",
    "0b 00 00 0a 00 00 42 00 bf 61 72 65 68 65 6c 6c 6f ff",
    "02 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f",
    "0a 00 00 8a 00 01 10 01 a6 65 69 6d 61 67 65 00 63 6c 65 6e 19 02 48 63 6f 66 66 00 63 73 68 61 58 20"
        + " c5a5fca9c90a7292439ba4a5aaa19d76c0b2d59672073efa89a3ae430aa5e2f7 64 64 61 74 61 58 40"
        + " 3db8f39600000000200000000002000000000000010203000400000000000000"
        + " 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f 67 75 70 67 72 61 64 65 f4",
    "0b 00 00 07 00 01 10 01 a1 63 6f 66 66 18 40",
    "0b 00 00 08 00 01 10 01 bf 63 6f 66 66 18 40 ff",
    "0a 00 00 1d 00 01 11 01 a2 63 6f 66 66 18 40 64 64 61 74 61 50 20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f",
    "0b 00 00 0f 00 01 19 01 a2 63 6f 66 66 19 02 48 65 6d 61 74 63 68 f5",
    "0b 00 00 11 00 01 20 00 a1 63 65 72 72 a2 65 67 72 6f 75 70 01 62 72 63 08",
    "0b 00 00 13 00 01 20 00 bf 63 65 72 72 bf 65 67 72 6f 75 70 01 62 72 63 08 ff ff",
    "03 00 00 05 00 01 20 00 a1 62 72 63 01",
    "09 00 00 05 00 00 21 03 a1 62 72 63 08",
    "09 00 00 06 00 00 21 03 bf 62 72 63 08 ff",
    "08 00 00 01 00 01 31 00 a0",
    "08 00 00 01 00 00 50 06 a0",
    "09 00 00 18 00 00 50 06 a2 68 62 75 66 5f 73 69 7a 65 19 09 ab 69 62 75 66 5f 63 6f 75 6e 74 04",
    "0a 00 00 01 00 00 51 05 a0",
    "0b 00 00 01 00 00 51 05 a0",
].map(HexText.bytes)

/// Random and mutated inputs for the decoders, from a seeded generator so a failure reproduces.
struct Mutator {
    var rng: SeededRandom
    let corpus: [[UInt8]]

    /// Bytes that make decoders take unusual paths: long heads, indefinite starts, breaks, reserved values.
    static let interesting: [UInt8] = [
        0x00, 0x17, 0x18, 0x1b, 0x1c, 0x1f, 0x3b, 0x40, 0x5b, 0x5f, 0x60, 0x7b, 0x7f, 0x80, 0x9b, 0x9f,
        0xa0, 0xbb, 0xbf, 0xc0, 0xc6, 0xd4, 0xdb, 0xdf, 0xe0, 0xf3, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xff,
    ]

    mutating func int(_ bound: Int) -> Int { Int.random(in: 0..<max(bound, 1), using: &rng) }

    mutating func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in int(4) == 0 ? Self.interesting[int(Self.interesting.count)] : UInt8.random(in: 0...255, using: &rng) }
    }

    mutating func next() -> [UInt8] {
        if int(10) == 0 { return randomBytes(int(48)) }
        var bytes = corpus[int(corpus.count)]
        for _ in 0...int(4) {
            switch int(9) {
            case 0 where !bytes.isEmpty:  // flip a bit
                let i = int(bytes.count)
                bytes[i] ^= 1 << UInt8(int(8))
            case 1 where !bytes.isEmpty:  // replace a byte
                bytes[int(bytes.count)] = int(2) == 0 ? Self.interesting[int(Self.interesting.count)] : UInt8(int(256))
            case 2:  // insert bytes
                bytes.insert(contentsOf: randomBytes(1 + int(9)), at: int(bytes.count + 1))
            case 3 where !bytes.isEmpty:  // delete a range
                let start = int(bytes.count)
                bytes.removeSubrange(start..<min(bytes.count, start + 1 + int(8)))
            case 4:  // truncate
                bytes = Array(bytes.prefix(int(bytes.count + 1)))
            case 5 where !bytes.isEmpty:  // duplicate a slice
                let start = int(bytes.count)
                let slice = bytes[start..<min(bytes.count, start + 1 + int(16))]
                bytes.insert(contentsOf: slice, at: int(bytes.count + 1))
            case 6:  // splice with another corpus entry
                let other = corpus[int(corpus.count)]
                bytes = Array(bytes.prefix(int(bytes.count + 1))) + other.suffix(int(other.count + 1))
            case 7 where bytes.count >= 2:  // overwrite a big-endian length-like field with an extreme
                let i = int(bytes.count - 1)
                let extreme: [UInt8] = [[0xff, 0xff], [0x80, 0x00], [0x00, 0x00], [0x7f, 0xff]][int(4)]
                bytes[i] = extreme[0]
                bytes[i + 1] = extreme[1]
            default:  // append
                bytes += randomBytes(1 + int(4))
            }
        }
        return bytes
    }
}

/// Feeds every input to each decoder: each one either succeeds or throws its typed error.
/// Whatever decodes must also re-encode and read back to the same value.
@Suite("Fuzz", .cpuHeavy)
struct FuzzTests {
    static let iterations = 100_000

    @Test("100 000 random and mutated inputs: CBORReader, CBORDecoder, SMPPacket + decodedPayload")
    func fuzz() async throws {
        let vectors = try VectorFile.load().filter { $0.count <= 4096 }
        let payloads = referencePackets.map { Array($0.dropFirst(8)) }
        var mutator = Mutator(rng: SeededRandom(seed: 0xf022_5eed), corpus: vectors + referencePackets + payloads)
        var decoded = 0
        var packets = 0
        var failures = 0
        let writer = CBORWriter(sortsMapKeys: false)
        for iteration in 0..<Self.iterations {
            if iteration % 256 == 0 { await Task.yield() }  // let the other tests' tasks run
            let input = mutator.next()
            func fail(_ message: String) {
                failures += 1
                Issue.record("iteration \(iteration), input \(HexText.string(input.prefix(96))): \(message)")
            }

            // CBORReader: typed throws; check what it reports and that a result reads back.
            do {
                let value = try CBORReader().decode(input)
                decoded += 1
                let again = writer.encode(value)
                do {
                    let back = try CBORReader().decode(again)
                    if back != value { fail("re-encoded as \(HexText.string(again.prefix(64))), read back as \(back)") }
                } catch {
                    fail("re-encoding \(value) does not decode: \(error)")
                }
            } catch {
                if case .empty = error, !input.isEmpty { fail("non-empty input reported as empty") }
            }
            if let prefix = try? CBORReader().decodePrefix(input), prefix.consumed > input.count || prefix.consumed < 1 {
                fail("decodePrefix consumed \(prefix.consumed) of \(input.count) bytes")
            }

            // CBORDecoder: a CBORDecodingError or a DecodingError, nothing else.
            do {
                _ = try CBORDecoder().decode(FuzzResponse.self, from: input)
            } catch is CBORDecodingError {
            } catch is DecodingError {
            } catch {
                fail("CBORDecoder threw \(type(of: error)): \(error)")
            }

            // SMP: the input as a whole packet, and as the payload of a well-framed packet.
            if let packet = try? SMPPacket(decoding: input) {
                packets += 1
                // Re-encoded the same, except the reserved bits 7-5 of byte 0, which are ignored.
                if packet.bytes != [input[0] & 0x1f] + input.dropFirst() { fail("packet re-encodes differently") }
                if let payload = try? packet.decodedPayload() { _ = try? SMPDeviceError(response: payload) }
            }
            if input.count <= Int(UInt16.max) {
                let header = SMPHeader(operation: .readResponse, length: UInt16(input.count), group: 1, sequence: 7, command: 0)
                do {
                    let packet = try SMPPacket(decoding: header.bytes + input)
                    if packet.payload != input { fail("payload changed in framing") }
                    if let payload = try? packet.decodedPayload() {
                        _ = try? SMPDeviceError(response: payload)
                        _ = payload.description
                    }
                } catch {
                    fail("a well-framed packet was refused: \(error)")
                }
            }
            if failures > 10 { break }
        }
        // The mix exercises both outcomes.
        #expect(decoded > Self.iterations / 50)
        #expect(decoded < Self.iterations)
        #expect(packets > 100)
    }
}
