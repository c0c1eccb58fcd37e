import CBOR
import Foundation
import SMPTestSupport
import Testing

// Representative SMP request and response bodies (smp-reference §3, §8).

struct EchoRequest: Codable, Equatable {
    var d: String
}

struct EchoResponse: Codable, Equatable {
    var r: String
}

struct ImageUploadRequest: Codable, Equatable {
    var image: Int?
    var len: Int?
    var off: Int
    var sha: Data?
    var data: Data
    var upgrade: Bool?
}

struct ImageUploadResponse: Codable, Equatable {
    var off: Int?
    var match: Bool?
    var rc: Int?
}

struct ImageSlot: Codable, Equatable {
    var image: Int?
    var slot: Int
    var version: String
    var hash: Data
    var bootable: Bool?
    var pending: Bool?
    var confirmed: Bool?
    var active: Bool?
    var permanent: Bool?
}

struct ImageStateResponse: Codable, Equatable {
    var images: [ImageSlot]
    var splitStatus: Int?
}

struct GroupError: Codable, Equatable {
    var group: UInt16
    var rc: Int
}

struct ErrorResponse: Codable, Equatable {
    var err: GroupError?
    var rc: Int?
    var rsn: String?
}

struct ParamsResponse: Codable, Equatable {
    var bufSize: UInt32
    var bufCount: UInt8

    enum CodingKeys: String, CodingKey {
        case bufSize = "buf_size"
        case bufCount = "buf_count"
    }
}

/// The §8.2 test image: 32-byte header and the first 32 payload bytes (0x00...0x1f).
let firstChunk = Data(HexText.bytes("3db8f39600000000200000000002000000000000010203000400000000000000") + (0..<32).map { UInt8($0) })
let uploadSHA = Data(HexText.bytes("c5a5fca9c90a7292439ba4a5aaa19d76c0b2d59672073efa89a3ae430aa5e2f7"))
let imageHash = Data(HexText.bytes("150dab841b12b517b5421a0c97ebbb3f2f4df1f12f11f36906eb52301ffb53c5"))

let firstUpload = ImageUploadRequest(image: 0, len: 584, off: 0, sha: uploadSHA, data: firstChunk, upgrade: false)

let imageState = ImageStateResponse(
    images: [
        ImageSlot(image: 0, slot: 0, version: "1.2.3.4", hash: imageHash, bootable: true, pending: false,
                  confirmed: true, active: true, permanent: false),
        ImageSlot(image: 0, slot: 1, version: "1.3.0", hash: Data(0..<32), bootable: true, pending: true,
                  confirmed: false, active: false, permanent: false),
    ],
    splitStatus: 0
)

@Suite("Codable")
struct CodableTests {
    func roundTrip<T: Codable & Equatable>(_ value: T) throws -> [UInt8] {
        let bytes = try CBOREncoder().encode(value)
        let back = try CBORDecoder().decode(T.self, from: bytes)
        #expect(back == value)
        return bytes
    }

    @Test("echo request and response round trip")
    func echo() throws {
        _ = try roundTrip(EchoRequest(d: "hello"))
        _ = try roundTrip(EchoResponse(r: "héllo ✓"))
    }

    @Test("image upload first chunk round trips, with Data as byte strings")
    func uploadFirstChunk() throws {
        let bytes = try roundTrip(firstUpload)
        let value = try CBORReader().decode(bytes)
        #expect(value["data"] == .bytes([UInt8](firstChunk)))
        #expect(value["sha"] == .bytes([UInt8](uploadSHA)))
        #expect(value["upgrade"] == .bool(false))
        #expect(value["len"] == .unsigned(584))
    }

    @Test("nil optionals are left out of the map, and decode back as nil")
    func nilOptionalsOmitted() throws {
        let next = ImageUploadRequest(image: nil, len: nil, off: 64, sha: nil, data: Data(0x20..<0x30), upgrade: nil)
        let bytes = try roundTrip(next)
        let value = try CBORReader().decode(bytes)
        #expect(value.mapEntries?.map { $0.key } == [.text("off"), .text("data")])
        #expect(value["image"] == nil)
        #expect(value["sha"] == nil)
    }

    @Test("image state response with a nested array of slot structs round trips")
    func imageStateResponse() throws {
        let bytes = try roundTrip(imageState)
        let value = try CBORReader().decode(bytes)
        #expect(value["images"]?.arrayValue?.count == 2)
        #expect(value["images"]?.arrayValue?.first?["hash"] == .bytes([UInt8](imageHash)))
    }

    @Test("a response with an err map round trips and reads as the group error")
    func errorResponse() throws {
        _ = try roundTrip(ErrorResponse(err: GroupError(group: 1, rc: 8), rc: nil, rsn: nil))
        _ = try roundTrip(ErrorResponse(err: nil, rc: 8, rsn: "not supported"))
        let decoded = try CBORDecoder().decode(ErrorResponse.self, from: HexText.bytes("a1 63 65 72 72 a2 65 67 72 6f 75 70 01 62 72 63 08"))
        #expect(decoded == ErrorResponse(err: GroupError(group: 1, rc: 8), rc: nil, rsn: nil))
    }

    // MARK: - Against cbor2's bytes

    @Test("encoder output equals cbor2's canonical bytes for the SMP payloads")
    func encoderMatchesCbor2() throws {
        let file = try CBORFixtureFile.load()
        let encoder = CBOREncoder()
        #expect(try encoder.encode(EchoRequest(d: "hello")) == file.smpPayload("echo request"))
        #expect(try encoder.encode(EchoResponse(r: "hello")) == file.smpPayload("echo response"))
        #expect(try encoder.encode(firstUpload) == file.smpPayload("upload first chunk"))
        #expect(try encoder.encode(ImageUploadRequest(off: 64, data: Data(0x20..<0x30))) == file.smpPayload("upload next chunk"))
        #expect(try encoder.encode(ImageUploadResponse(off: 64)) == file.smpPayload("upload response"))
        #expect(try encoder.encode(ImageUploadResponse(off: 584, match: true)) == file.smpPayload("upload final response"))
        #expect(try encoder.encode(imageState) == file.smpPayload("image state response"))
        #expect(try encoder.encode(ErrorResponse(err: GroupError(group: 1, rc: 8))) == file.smpPayload("group error response"))
        #expect(try encoder.encode(ParamsResponse(bufSize: 2475, bufCount: 4)) == file.smpPayload("mcumgr params response"))
    }

    @Test("the §8.2 first-chunk payload, canonically sorted, is exactly 138 bytes as in the reference")
    func uploadPayloadSize() throws {
        let bytes = try CBOREncoder().encode(firstUpload)
        #expect(bytes.count == 138)
        // Canonical order is length-first: "len", "off", "sha", "data", "image", "upgrade".
        let keys = try CBORReader().decode(bytes).mapEntries?.compactMap(\.key.textValue)
        #expect(keys == ["len", "off", "sha", "data", "image", "upgrade"])
    }

    @Test("decoder reads cbor2's bytes of every SMP payload into the structs")
    func decoderReadsCbor2() throws {
        let file = try CBORFixtureFile.load()
        let decoder = CBORDecoder()
        #expect(try decoder.decode(ImageUploadRequest.self, from: file.smpPayload("upload first chunk")) == firstUpload)
        #expect(try decoder.decode(ImageStateResponse.self, from: file.smpPayload("image state response")) == imageState)
        #expect(try decoder.decode(ParamsResponse.self, from: file.smpPayload("mcumgr params response")) == ParamsResponse(bufSize: 2475, bufCount: 4))
        #expect(try decoder.decode(ImageUploadResponse.self, from: file.smpPayload("upload final response")) == ImageUploadResponse(off: 584, match: true))
    }

    // MARK: - Tolerance

    @Test("unknown keys are ignored, in definite and indefinite form")
    func unknownKeysIgnored() throws {
        let extended = CBORValue.map([
            (key: .text("rsn"), value: .text("ok")),
            (key: .text("images"), value: .array([
                .textMap([
                    "slot": .unsigned(0), "version": .text("1.2.3.4"), "hash": .bytes([UInt8](imageHash)),
                    "future": .array([.float(1.5), .null]), "active": .bool(true),
                ]),
            ])),
            (key: .unsigned(7), value: .text("integer key")),
            (key: .text("extra"), value: .textMap(["nested": .tagged(42, .undefined)])),
            (key: .text("splitStatus"), value: .unsigned(0)),
        ])
        let expected = ImageStateResponse(
            images: [ImageSlot(slot: 0, version: "1.2.3.4", hash: imageHash, active: true)], splitStatus: 0
        )
        for writer in [CBORWriter(), CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: true)] {
            let bytes = writer.encode(extended)
            #expect(try CBORDecoder().decode(ImageStateResponse.self, from: bytes) == expected)
        }
        // The Zephyr-form responses of smp-reference §8.
        #expect(try CBORDecoder().decode(EchoResponse.self, from: HexText.bytes("bf 61 72 65 68 65 6c 6c 6f ff")) == EchoResponse(r: "hello"))
        #expect(try CBORDecoder().decode(ImageUploadResponse.self, from: HexText.bytes("bf 63 6f 66 66 18 40 ff")) == ImageUploadResponse(off: 64))
        #expect(try CBORDecoder().decode(ErrorResponse.self, from: HexText.bytes("bf 63 65 72 72 bf 65 67 72 6f 75 70 01 62 72 63 08 ff ff"))
            == ErrorResponse(err: GroupError(group: 1, rc: 8)))
        // Chunked strings decode into String and Data fields.
        #expect(try CBORDecoder().decode(EchoResponse.self, from: HexText.bytes("bf 61 72 7f 63 68 65 6c 62 6c 6f ff ff")) == EchoResponse(r: "hello"))
    }

    @Test("a CBORValue field receives the item unchanged")
    func cborValueField() throws {
        struct Stats: Codable, Equatable {
            var name: String
            var fields: CBORValue
        }
        // Keys in canonical order already: the default writer sorts nested maps too.
        let fields = CBORValue.map([(key: .unsigned(1), value: .tagged(2, .bytes([1, 0]))), (key: .text("a"), value: .negative(4))])
        let stats = Stats(name: "smp", fields: fields)
        #expect(try CBORDecoder().decode(Stats.self, from: try CBOREncoder().encode(stats)) == stats)
        // Out of order, the encoder's canonical writer sorts the nested map (length-first, like cbor2).
        let unsorted = Stats(name: "smp", fields: .map([(key: .text("a"), value: .negative(4)), (key: .unsigned(1), value: .null)]))
        let decoded = try CBORDecoder().decode(Stats.self, from: try CBOREncoder().encode(unsorted))
        #expect(decoded.fields == .map([(key: .unsigned(1), value: .null), (key: .text("a"), value: .negative(4))]))
    }

    // MARK: - Typed errors

    @Test("missing fields, wrong types and out-of-range integers throw DecodingError")
    func decodingErrors() throws {
        let decoder = CBORDecoder()
        #expect(throws: DecodingError.self) { try decoder.decode(EchoResponse.self, from: HexText.bytes("a0")) }
        #expect(throws: DecodingError.self) { try decoder.decode(EchoResponse.self, from: HexText.bytes("a1 61 72 05")) }
        #expect(throws: DecodingError.self) { try decoder.decode(EchoResponse.self, from: HexText.bytes("80")) }
        #expect(throws: DecodingError.self) { try decoder.decode(ParamsResponse.self, from: try CBOREncoder().encode(CBORValue.textMap(["buf_size": .unsigned(1 << 33), "buf_count": .unsigned(1)]))) }
        #expect(throws: DecodingError.self) { try decoder.decode(ParamsResponse.self, from: try CBOREncoder().encode(CBORValue.textMap(["buf_size": .negative(0), "buf_count": .unsigned(1)]))) }
        #expect(throws: DecodingError.self) { try decoder.decode(ImageSlot.self, from: try CBOREncoder().encode(CBORValue.textMap(["slot": .unsigned(0), "version": .text("1"), "hash": .text("not bytes")]))) }
        // Malformed bytes come through as the reader's error.
        #expect(throws: CBORDecodingError.self) { try decoder.decode(EchoResponse.self, from: HexText.bytes("a1 61 72 65 68 65")) }
    }
}
