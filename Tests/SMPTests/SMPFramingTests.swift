import CBOR
import Foundation
import SMP
import SMPTestSupport
import Testing

/// The byte-exact examples of smp-reference §8, and framing errors.
@Suite("SMP header and packet")
struct SMPFramingTests {
    // MARK: - §8 examples

    @Test("§8.1 echo request, v2: header fields and bytes")
    func echoRequestV2() throws {
        let bytes = HexText.bytes("0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
        let packet = try SMPPacket(decoding: bytes)
        #expect(packet.header == SMPHeader(version: .v2, operation: .write, flags: 0, length: 9, group: 0, sequence: 0x42, command: 0))
        #expect(try packet.decodedPayload() == .textMap(["d": .text("hello")]))
        // Built from parts, it is the same bytes.
        let built = try SMPPacket(
            header: SMPHeader(operation: .write, length: 0, group: SMPGroup.os.rawValue, sequence: 0x42, command: 0),
            payload: CBORWriter().encode(.textMap(["d": .text("hello")]))
        )
        #expect(built.bytes == bytes)
        #expect(built.header.length == 9)
    }

    @Test("§8.1 echo request, v1, and responses in definite and Zephyr (indefinite) form")
    func echoV1AndResponses() throws {
        let v1 = try SMPPacket(decoding: HexText.bytes("02 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f"))
        #expect(v1.header.version == .v1)
        #expect(v1.header.operation == .write)
        #expect(SMPHeader(version: .v1, operation: .write, length: 9, group: 0, sequence: 0x42, command: 0).bytes == HexText.bytes("02 00 00 09 00 00 42 00"))

        let definite = HexText.bytes("0b 00 00 09 00 00 42 00 a1 61 72 65 68 65 6c 6c 6f")
        let zephyr = HexText.bytes("0b 00 00 0a 00 00 42 00 bf 61 72 65 68 65 6c 6c 6f ff")
        for bytes in [definite, zephyr] {
            let packet = try SMPPacket(decoding: bytes)
            #expect(packet.header.operation == .writeResponse)
            #expect(packet.header.version == .v2)
            #expect(packet.header.sequence == 0x42)
            #expect(try packet.decodedPayload() == .textMap(["r": .text("hello")]))
            #expect(packet.bytes == bytes)
            #expect(try SMPDeviceError(response: packet.decodedPayload()) == nil)
        }
        // The response to the request, built the way a device does, is the definite form.
        let response = try SMPPacket(
            header: SMPHeader(operation: v1.header.operation.response, length: 0, group: 0, sequence: 0x42, command: 0),
            payload: CBORWriter().encode(.textMap(["r": .text("hello")]))
        )
        #expect(response.bytes == definite)
    }

    static let uploadSHA = HexText.bytes("c5a5fca9c90a7292439ba4a5aaa19d76c0b2d59672073efa89a3ae430aa5e2f7")
    static let first64 = HexText.bytes("3db8f39600000000200000000002000000000000010203000400000000000000") + (0..<32).map { UInt8($0) }

    @Test("§8.2 image upload first chunk: header bytes and the reference packet")
    func uploadFirstChunk() throws {
        // The packet exactly as the reference prints it (map in the order listed, 146 bytes).
        let reference = HexText.bytes("0a 00 00 8a 00 01 10 01 a6 65 69 6d 61 67 65 00 63 6c 65 6e 19 02 48 63 6f 66 66 00 63 73 68 61 58 20")
            + Self.uploadSHA + HexText.bytes("64 64 61 74 61 58 40") + Self.first64 + HexText.bytes("67 75 70 67 72 61 64 65 f4")
        #expect(reference.count == 146)
        let packet = try SMPPacket(decoding: reference)
        #expect(packet.header == SMPHeader(version: .v2, operation: .write, length: 138, group: 1, sequence: 0x10, command: 1))
        let payload = try packet.decodedPayload()
        #expect(payload["image"] == .unsigned(0))
        #expect(payload["len"] == .unsigned(584))
        #expect(payload["off"] == .unsigned(0))
        #expect(payload["sha"] == .bytes(Self.uploadSHA))
        #expect(payload["data"] == .bytes(Self.first64))
        #expect(payload["upgrade"] == .bool(false))

        // Our canonical encoding sorts the keys, so only the header and the size are the same.
        let ours = try SMPPacket(
            header: SMPHeader(operation: .write, length: 0, group: SMPGroup.image.rawValue, sequence: 0x10, command: 1),
            payload: CBORWriter().encode(payload)
        )
        #expect(Array(ours.bytes.prefix(8)) == HexText.bytes("0a 00 00 8a 00 01 10 01"))
        #expect(ours.bytes.count == 146)
        let decoded = try ours.decodedPayload()
        #expect(decoded.mapEntries?.compactMap(\.key.textValue) == ["len", "off", "sha", "data", "image", "upgrade"])
        for key in ["image", "len", "off", "sha", "data", "upgrade"] {
            #expect(decoded[key] == payload[key], "\(key)")
        }
    }

    @Test("§8.2 upload responses and the next chunk are byte-exact")
    func uploadResponses() throws {
        for hex in ["0b 00 00 07 00 01 10 01 a1 63 6f 66 66 18 40", "0b 00 00 08 00 01 10 01 bf 63 6f 66 66 18 40 ff"] {
            let packet = try SMPPacket(decoding: HexText.bytes(hex))
            #expect(packet.header.operation == .writeResponse)
            #expect(packet.header.group == SMPGroup.image.rawValue)
            #expect(try packet.decodedPayload() == .textMap(["off": .unsigned(64)]))
        }
        let next = try SMPPacket(
            header: SMPHeader(operation: .write, length: 0, group: 1, sequence: 0x11, command: 1),
            payload: CBORWriter().encode(.textMap(["off": .unsigned(64), "data": .bytes(Array(0x20...0x2f))]))
        )
        #expect(next.bytes == HexText.bytes("0a 00 00 1d 00 01 11 01 a2 63 6f 66 66 18 40 64 64 61 74 61 50") + Array(0x20...0x2f))
        let final = try SMPPacket(
            header: SMPHeader(operation: .writeResponse, length: 0, group: 1, sequence: 0x19, command: 1),
            payload: CBORWriter().encode(.textMap(["off": .unsigned(584), "match": .bool(true)]))
        )
        #expect(final.bytes == HexText.bytes("0b 00 00 0f 00 01 19 01 a2 63 6f 66 66 19 02 48 65 6d 61 74 63 68 f5"))
    }

    @Test("§8.3 error responses map to the right SMPDeviceError", arguments: [
        ("0b 00 00 11 00 01 20 00 a1 63 65 72 72 a2 65 67 72 6f 75 70 01 62 72 63 08", SMPDeviceError.image(.hashNotFound)),
        ("0b 00 00 13 00 01 20 00 bf 63 65 72 72 bf 65 67 72 6f 75 70 01 62 72 63 08 ff ff", SMPDeviceError.image(.hashNotFound)),
        ("03 00 00 05 00 01 20 00 a1 62 72 63 01", SMPDeviceError.status(.unknown, reason: nil)),
        ("09 00 00 05 00 00 21 03 a1 62 72 63 08", SMPDeviceError.status(.notSupported, reason: nil)),
        ("09 00 00 06 00 00 21 03 bf 62 72 63 08 ff", SMPDeviceError.status(.notSupported, reason: nil)),
    ])
    func errorResponses(_ hex: String, _ expected: SMPDeviceError) throws {
        let packet = try SMPPacket(decoding: HexText.bytes(hex))
        #expect(packet.header.operation.isResponse)
        #expect(try SMPDeviceError(response: packet.decodedPayload()) == expected)
    }

    @Test("§8.4 handy packets are byte-exact")
    func handyPackets() throws {
        func packet(_ op: SMPOperation, _ group: SMPGroup, _ seq: UInt8, _ cmd: UInt8, _ payload: CBORValue) throws -> [UInt8] {
            try SMPPacket(header: SMPHeader(operation: op, length: 0, group: group.rawValue, sequence: seq, command: cmd),
                          payload: CBORWriter().encode(payload)).bytes
        }
        #expect(try packet(.read, .image, 0x31, 0, .map([])) == HexText.bytes("08 00 00 01 00 01 31 00 a0"))
        #expect(try packet(.read, .os, 0x50, 6, .map([])) == HexText.bytes("08 00 00 01 00 00 50 06 a0"))
        #expect(try packet(.readResponse, .os, 0x50, 6, .textMap(["buf_size": .unsigned(2475), "buf_count": .unsigned(4)]))
            == HexText.bytes("09 00 00 18 00 00 50 06 a2 68 62 75 66 5f 73 69 7a 65 19 09 ab 69 62 75 66 5f 63 6f 75 6e 74 04"))
        #expect(try packet(.write, .os, 0x51, 5, .map([])) == HexText.bytes("0a 00 00 01 00 00 51 05 a0"))
        #expect(try packet(.writeResponse, .os, 0x51, 5, .map([])) == HexText.bytes("0b 00 00 01 00 00 51 05 a0"))
        let hash = Array(repeating: UInt8(0xab), count: 32)
        #expect(try packet(.write, .image, 0x30, 0, .textMap(["hash": .bytes(hash), "confirm": .bool(false)]))
            == HexText.bytes("0a 00 00 31 00 01 30 00 a2 64 68 61 73 68 58 20") + hash + HexText.bytes("67 63 6f 6e 66 69 72 6d f4"))
    }

    // MARK: - Header fields

    @Test("byte 0 is (version << 3) | op for every version and operation, and decodes back")
    func byteZero() throws {
        for version in SMPVersion.allCases {
            for op in SMPOperation.allCases {
                let header = SMPHeader(version: version, operation: op, flags: 0, length: 0x1234, group: 0xabcd, sequence: 0xfe, command: 0x7f)
                let bytes = header.bytes
                #expect(bytes == [version.rawValue << 3 | op.rawValue, 0, 0x12, 0x34, 0xab, 0xcd, 0xfe, 0x7f])
                #expect(try SMPHeader(decoding: bytes) == header)
            }
        }
        #expect(try SMPHeader(decoding: HexText.bytes("0a 00 00 00 00 00 00 00")).operation == .write)
        #expect(try SMPHeader(decoding: HexText.bytes("09 00 00 00 00 00 00 00")).version == .v2)
    }

    @Test("op mapping: read → read response, write → write response")
    func opMapping() {
        #expect(SMPOperation.read.response == .readResponse)
        #expect(SMPOperation.write.response == .writeResponse)
        #expect(SMPOperation.read.rawValue == 0 && SMPOperation.readResponse.rawValue == 1)
        #expect(SMPOperation.write.rawValue == 2 && SMPOperation.writeResponse.rawValue == 3)
        #expect(SMPOperation.allCases.filter(\.isResponse) == [.readResponse, .writeResponse])
    }

    @Test("flags, 16-bit length and group are carried big-endian")
    func bigEndianFields() throws {
        let header = try SMPHeader(decoding: HexText.bytes("0b 5a ff 01 01 02 ff 3f"))
        #expect(header.flags == 0x5a)
        #expect(header.length == 0xff01)
        #expect(header.group == 0x0102)
        #expect(header.sequence == 0xff)
        #expect(header.command == 0x3f)
    }

    @Test("a header reads alike from an array, a slice further in, and bytes that are not contiguous")
    func headerFromAnyCollection() throws {
        let bytes = HexText.bytes("ff ff 0b 5a ff 01 01 02 ff 3f 99")
        let expected = SMPHeader(version: .v2, operation: .writeResponse, flags: 0x5a, length: 0xff01, group: 0x0102, sequence: 0xff, command: 0x3f)
        #expect(try SMPHeader(decoding: Array(bytes[2...])) == expected)
        #expect(try SMPHeader(decoding: bytes[2...]) == expected)
        #expect(try SMPHeader(decoding: bytes.dropFirst(2).lazy.map { $0 }) == expected)
        #expect(throws: SMPFramingError.shortHeader(count: 7)) { try SMPHeader(decoding: bytes[2..<9].lazy.map { $0 }) }
    }

    @Test("the reserved bits 7-5 of byte 0 are ignored on receive, as Zephyr does")
    func reservedBitsIgnored() throws {
        let header = try SMPHeader(decoding: HexText.bytes("eb 00 00 00 00 00 00 00"))
        #expect(header.version == .v2)
        #expect(header.operation == .writeResponse)
        #expect(header.bytes[0] == 0x0b)
    }

    // MARK: - Framing errors

    @Test("a header under 8 bytes is refused", arguments: 0...7)
    func shortHeader(_ count: Int) {
        let bytes = Array(HexText.bytes("0b 00 00 00 00 00 00 00").prefix(count))
        #expect(throws: SMPFramingError.shortHeader(count: count)) { try SMPHeader(decoding: bytes) }
        #expect(throws: SMPFramingError.shortHeader(count: count)) { try SMPPacket(decoding: bytes) }
    }

    @Test("unknown operations 4-7 are refused", arguments: UInt8(4)...7)
    func unknownOperation(_ op: UInt8) {
        for version in [UInt8(0), 1] {
            let bytes = [version << 3 | op, 0, 0, 0, 0, 0, 0, 0]
            #expect(throws: SMPFramingError.unknownOperation(op)) { try SMPPacket(decoding: bytes) }
        }
    }

    @Test("reserved version bits 0b10 and 0b11 are refused")
    func reservedVersion() {
        for version in [UInt8(2), 3] {
            for op in UInt8(0)...3 {
                #expect(throws: SMPFramingError.unsupportedVersion(version)) { try SMPPacket(decoding: [version << 3 | op, 0, 0, 1, 0, 0, 0, 0, 0xa0]) }
            }
        }
    }

    @Test("a length beyond the bytes present is refused")
    func lengthBeyondBytes() {
        let echo = HexText.bytes("0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
        for cut in 8..<echo.count {
            #expect(throws: SMPFramingError.truncated(declared: 9, available: cut - 8)) { try SMPPacket(decoding: echo.prefix(cut)) }
        }
        #expect(throws: SMPFramingError.truncated(declared: 0xffff, available: 1)) { try SMPPacket(decoding: HexText.bytes("0b 00 ff ff 00 00 00 00 a0")) }
        #expect(throws: SMPFramingError.truncated(declared: 9, available: 3)) { try SMPPacket.split(echo + echo.prefix(11)) }
    }

    @Test("a length shorter than the CBOR: the packet is refused whole, and its declared payload does not decode")
    func lengthShorterThanCBOR() throws {
        // The echo request, but the header declares 5 payload bytes instead of 9.
        let bytes = HexText.bytes("0a 00 00 05 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
        #expect(throws: SMPFramingError.trailingBytes(declared: 5, available: 9)) { try SMPPacket(decoding: bytes) }
        // Taken by its declared length, the payload is truncated CBOR.
        let packet = try SMPPacket(decoding: bytes.prefix(13))
        #expect(packet.payload == HexText.bytes("a1 61 64 65 68"))
        #expect(throws: CBORDecodingError.self) { try packet.decodedPayload() }
        // And a packet whose payload is CBOR followed by extra bytes does not decode either.
        let padded = try SMPPacket(decoding: HexText.bytes("0b 00 00 02 00 00 00 00 a0 00"))
        #expect(throws: CBORDecodingError.trailingBytes(count: 1)) { try padded.decodedPayload() }
    }

    @Test("an empty payload reads as an empty map")
    func emptyPayload() throws {
        let packet = try SMPPacket(decoding: HexText.bytes("0b 00 00 00 00 00 51 05"))
        #expect(packet.payload.isEmpty)
        #expect(try packet.decodedPayload() == .map([]))
    }

    @Test("a payload over 65535 bytes cannot be framed")
    func payloadTooLarge() throws {
        let header = SMPHeader(operation: .write, length: 0, group: 8, sequence: 0, command: 0)
        #expect(throws: SMPFramingError.payloadTooLarge(count: 65536)) { try SMPPacket(header: header, payload: Array(repeating: 0, count: 65536)) }
        #expect(try SMPPacket(header: header, payload: Array(repeating: 0, count: 65535)).header.length == 65535)
    }

    @Test("concatenated packets split at each header's length")
    func split() throws {
        let a = HexText.bytes("0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
        let b = HexText.bytes("08 00 00 01 00 01 31 00 a0")
        let c = HexText.bytes("0b 00 00 00 00 00 51 05")
        let packets = try SMPPacket.split(a + b + c)
        #expect(packets.map(\.bytes) == [a, b, c])
        #expect(try SMPPacket.split([]).isEmpty)
        #expect(throws: SMPFramingError.shortHeader(count: 3)) { try SMPPacket.split(a + [0x0a, 0, 0]) }
    }

    @Test("framing error descriptions say what is wrong")
    func descriptions() {
        #expect(SMPFramingError.shortHeader(count: 3).description.contains("8-byte header"))
        #expect(SMPFramingError.unknownOperation(5).description.contains("5"))
        #expect(SMPFramingError.truncated(declared: 9, available: 3).description.contains("9"))
    }
}
