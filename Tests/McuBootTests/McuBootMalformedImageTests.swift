import Foundation
import McuBoot
import SMPTestTraits
import Testing

/// Malformed images are refused with the right typed error, and nothing crashes.
@Suite("Malformed MCUboot images", .cpuHeavy)
struct McuBootMalformedImageTests {
    /// A small valid image with a protected area (security counter) and a SHA-256 TLV.
    static func validImage(protected: Bool = true) throws -> [UInt8] {
        var builder = McuBootImageBuilder(payload: Array(0..<200), version: McuBootVersion(major: 1, minor: 2, revision: 3))
        if protected { builder.securityCounter = 7 }
        return try builder.build()
    }

    static func setLE16(_ bytes: inout [UInt8], at offset: Int, _ value: UInt16) {
        bytes[offset] = UInt8(value & 0xff)
        bytes[offset + 1] = UInt8(value >> 8)
    }

    static func setLE32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        for i in 0..<4 { bytes[offset + i] = UInt8((value >> (8 * UInt32(i))) & 0xff) }
    }

    @Test("fewer than 32 bytes: tooShort")
    func tooShort() throws {
        let valid = try Self.validImage()
        for length in 0..<32 {
            #expect(parseError(Array(valid.prefix(length))) == .tooShort(size: length))
        }
    }

    @Test("bad magic, and the legacy v1 magic")
    func badMagic() throws {
        var bytes = try Self.validImage()
        Self.setLE32(&bytes, at: 0, 0x1234_5678)
        let error = parseError(bytes)
        #expect(error == .badMagic(found: 0x1234_5678))
        #expect(error?.description.contains("0x12345678") == true)
        #expect(error?.description.contains("signed image") == true)

        Self.setLE32(&bytes, at: 0, McuBootImageHeader.legacyMagic)
        #expect(parseError(bytes) == .badMagic(found: 0x96f3_b83c))
        #expect(parseError(bytes)?.description.contains("Legacy") == true)

        // A raw binary (e.g. zephyr.bin, starting with a vector table) is not an image.
        #expect(parseError([0x00, 0x04, 0x00, 0x20] + Array(repeating: 0, count: 60)) == .badMagic(found: 0x2000_0400))
    }

    @Test("header size smaller than the header, or past the end of the file")
    func headerSize() throws {
        var bytes = try Self.validImage()
        Self.setLE16(&bytes, at: 8, 0x10)
        #expect(parseError(bytes) == .headerSizeTooSmall(0x10))
        Self.setLE16(&bytes, at: 8, 0xffff)
        #expect(parseError(bytes) == .headerSizePastEnd(headerSize: 0xffff, fileSize: bytes.count))
    }

    @Test("image size past the end of the file, including the largest value")
    func imageSize() throws {
        var bytes = try Self.validImage()
        Self.setLE32(&bytes, at: 12, 0xffff_ffff)
        #expect(parseError(bytes) == .imageSizePastEnd(payloadEnd: 32 + 0xffff_ffff, fileSize: bytes.count))
        Self.setLE32(&bytes, at: 12, UInt32(bytes.count - 31))
        #expect(parseError(bytes) == .imageSizePastEnd(payloadEnd: bytes.count + 1, fileSize: bytes.count))
    }

    @Test("no TLV info header after the payload: missingTLVInfo")
    func missingTLVInfo() throws {
        let bytes = try Self.validImage(protected: false)
        let payloadEnd = 32 + 200
        for cut in payloadEnd..<(payloadEnd + 4) {
            #expect(parseError(Array(bytes.prefix(cut))) == .missingTLVInfo(offset: payloadEnd, fileSize: cut))
        }
        // An image made of a header and payload only (imgtool with the TLVs cut off).
        #expect(parseError(Array(bytes.prefix(payloadEnd))) == .missingTLVInfo(offset: payloadEnd, fileSize: payloadEnd))
    }

    @Test("wrong TLV info magic, for either area")
    func badTLVMagic() throws {
        var bytes = try Self.validImage(protected: false)
        let offset = 32 + 200
        Self.setLE16(&bytes, at: offset, 0x6906)
        #expect(parseError(bytes) == .badTLVMagic(found: 0x6906, expected: 0x6907, offset: offset))

        // The header announces a protected area, but there is only the unprotected one.
        var noProtected = try Self.validImage(protected: false)
        Self.setLE16(&noProtected, at: 10, 40)
        #expect(parseError(noProtected) == .badTLVMagic(found: 0x6907, expected: 0x6908, offset: offset))

        // A protected area the header does not announce.
        var unannounced = try Self.validImage()
        Self.setLE16(&unannounced, at: 10, 0)
        #expect(parseError(unannounced) == .badTLVMagic(found: 0x6908, expected: 0x6907, offset: offset))
    }

    @Test("protected area size differs from ih_protect_tlv_size")
    func protectedSizeMismatch() throws {
        var bytes = try Self.validImage()
        #expect(bytes[10] == 12)
        Self.setLE16(&bytes, at: 10, 16)
        #expect(parseError(bytes) == .protectedTLVSizeMismatch(header: 16, tlvInfo: 12))
    }

    @Test("TLV area larger than the file: tlvAreaOverrun; smaller than its header: tlvAreaTooSmall")
    func tlvAreaOverrun() throws {
        var bytes = try Self.validImage(protected: false)
        let offset = 32 + 200
        Self.setLE16(&bytes, at: offset + 2, 0xffff)
        #expect(parseError(bytes) == .tlvAreaOverrun(offset: offset, areaSize: 0xffff, fileSize: bytes.count))
        Self.setLE16(&bytes, at: offset + 2, 41)
        #expect(parseError(bytes) == .tlvAreaOverrun(offset: offset, areaSize: 41, fileSize: bytes.count))
        Self.setLE16(&bytes, at: offset + 2, 3)
        #expect(parseError(bytes) == .tlvAreaTooSmall(offset: offset, size: 3))

        // The protected area's own size (header and info agree) runs past the file.
        var protected = Array(try Self.validImage().prefix(32 + 200 + 12))
        Self.setLE16(&protected, at: 10, 0x7000)
        Self.setLE16(&protected, at: offset + 2, 0x7000)
        #expect(parseError(protected) == .tlvAreaOverrun(offset: offset, areaSize: 0x7000, fileSize: protected.count))
    }

    @Test("TLV length past its area: tlvLengthOverrun (also erased flash 0xffff/0xffff)")
    func tlvLengthOverrun() throws {
        var bytes = try Self.validImage(protected: false)
        let area = 32 + 200
        Self.setLE16(&bytes, at: area + 4 + 2, 0x1000)
        #expect(parseError(bytes) == .tlvLengthOverrun(type: .sha256, offset: area + 4, length: 0x1000, areaEnd: area + 40))
        Self.setLE16(&bytes, at: area + 4 + 2, 33)
        #expect(parseError(bytes) == .tlvLengthOverrun(type: .sha256, offset: area + 4, length: 33, areaEnd: area + 40))

        // Erased flash after the area header.
        var erased = try Self.validImage(protected: false)
        for i in (area + 4)..<erased.count { erased[i] = 0xff }
        #expect(parseError(erased) == .tlvLengthOverrun(type: McuBootTLVType(0xffff), offset: area + 4, length: 0xffff, areaEnd: area + 40))

        // In the protected area.
        var protected = try Self.validImage()
        Self.setLE16(&protected, at: area + 4 + 2, 5)
        #expect(parseError(protected) == .tlvLengthOverrun(type: .securityCounter, offset: area + 4, length: 5, areaEnd: area + 12))
    }

    @Test("a TLV header cut by the end of its area: truncatedTLV")
    func truncatedTLV() throws {
        var bytes = try Self.validImage(protected: false)
        let area = 32 + 200
        Self.setLE16(&bytes, at: area + 2, 42)
        bytes += [0x10, 0x00]
        #expect(parseError(bytes) == .truncatedTLV(offset: area + 40, areaEnd: area + 42))
    }

    @Test("no hash TLV, several, or one of the wrong length")
    func hashTLV() throws {
        let area = 32 + 200
        var renamed = try Self.validImage(protected: false)
        Self.setLE16(&renamed, at: area + 4, 0x00a0)
        #expect(parseError(renamed) == .missingHash)
        #expect(parseError(renamed)?.description.contains("imgtool") == true)

        // An empty unprotected area.
        var empty = Array(try Self.validImage(protected: false).prefix(area + 4))
        Self.setLE16(&empty, at: area + 2, 4)
        #expect(parseError(empty) == .missingHash)

        // Two hash TLVs.
        var twice = try Self.validImage(protected: false)
        twice += Array(twice[(area + 4)..<(area + 40)])
        Self.setLE16(&twice, at: area + 2, 76)
        #expect(parseError(twice) == .multipleHashes([.sha256, .sha256]))

        // A SHA-512 TLV beside the SHA-256 one: the SHA-256 one is the hash (as in Zephyr).
        var both = try Self.validImage(protected: false)
        let sha256 = Array(both[(area + 8)..<(area + 40)])
        both += [0x12, 0x00, 64, 0x00] + Array(repeating: 0xee, count: 64)
        Self.setLE16(&both, at: area + 2, 40 + 68)
        let image = try McuBootImage(bytes: both)
        #expect(image.hashAlgorithm == .sha256)
        #expect(image.hash == sha256)
        try image.verifyHash()

        // A 31-byte SHA-256.
        var short = Array(try Self.validImage(protected: false).dropLast())
        Self.setLE16(&short, at: area + 2, 39)
        Self.setLE16(&short, at: area + 6, 31)
        #expect(parseError(short) == .badHashLength(type: .sha256, length: 31))
    }

    @Test("every truncation of every fixture gives the error of the part it cuts", arguments: Fixtures.entries)
    func truncations(entry: Fixtures.Entry) throws {
        let bytes = try Fixtures.bytes(entry.image)
        let image = try McuBootImage(bytes: bytes)
        let headerSize = Int(image.header.headerSize)
        let payloadEnd = image.payloadRange.upperBound
        let protectedSize = Int(image.header.protectedTLVSize)
        let unprotected = payloadEnd + protectedSize
        let unprotectedSize = image.endOffset - unprotected
        for length in 0..<image.endOffset {
            let expected: McuBootError
            switch length {
            case ..<32: expected = .tooShort(size: length)
            case ..<headerSize: expected = .headerSizePastEnd(headerSize: headerSize, fileSize: length)
            case ..<payloadEnd: expected = .imageSizePastEnd(payloadEnd: payloadEnd, fileSize: length)
            case ..<(payloadEnd + 4) where protectedSize > 0:
                expected = .missingTLVInfo(offset: payloadEnd, fileSize: length)
            case ..<unprotected: expected = .tlvAreaOverrun(offset: payloadEnd, areaSize: protectedSize, fileSize: length)
            case ..<(unprotected + 4): expected = .missingTLVInfo(offset: unprotected, fileSize: length)
            default: expected = .tlvAreaOverrun(offset: unprotected, areaSize: unprotectedSize, fileSize: length)
            }
            #expect(parseError(Array(bytes.prefix(length))) == expected, "length \(length)")
        }
        // Cutting after the image (into slot padding) keeps a valid image.
        for length in image.endOffset..<bytes.count {
            #expect(parseError(Array(bytes.prefix(length))) == nil)
        }
    }

    @Test("random bytes are refused, never crash")
    func randomBytes() {
        var rng = SeededGenerator(seed: 0x5eed)
        for round in 0..<2000 {
            var bytes = (0..<Int.random(in: 0...600, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Half the time, start with the right magic so that the header and TLV checks run.
            if round % 2 == 0, bytes.count >= 4 { bytes.replaceSubrange(0..<4, with: [0x3d, 0xb8, 0xf3, 0x96]) }
            if round % 4 == 0, bytes.count >= 12 { bytes[9] = 0; bytes[8] = 0x20; bytes[10] = 0; bytes[11] = 0 }
            if let image = try? McuBootImage(bytes: bytes) {
                checkInvariants(image)
            }
        }
    }

    @Test("thousands of random mutations of valid images never crash", arguments: ["signed-ecdsa-p256-seccnt", "protected-tlvs", "signed-ed25519-sha512-full", "padded-confirm"])
    func mutations(name: String) throws {
        let original = try Fixtures.bytes(Fixtures.entry(name).image)
        let valid = try McuBootImage(bytes: original)
        let key = try McuBootPublicKey(pemRepresentation: Fixtures.text("keys/ed25519.pub.pem"))
        var rng = SeededGenerator(seed: UInt64(truncatingIfNeeded: name.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        var parsed = 0
        var refused = 0
        for _ in 0..<2500 {
            var bytes = original
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:
                // Change 1–4 bytes, mostly in the header and TLV areas, where structure lives.
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let offset =
                        Bool.random(using: &rng)
                        ? Int.random(in: 0..<32, using: &rng)
                        : Int.random(in: valid.payloadRange.upperBound..<valid.endOffset, using: &rng)
                    bytes[offset] = UInt8.random(in: 0...255, using: &rng)
                }
            case 5..<7:
                // Set a length or size field to an extreme value.
                let fields = [8, 10, 12, valid.payloadRange.upperBound + 2] + valid.tlvs.map { $0.offset + 2 }
                let field = fields.randomElement(using: &rng)!
                let value = [0, 1, 3, 4, 0x7fff, 0xffff].randomElement(using: &rng)!
                bytes[field] = UInt8(value & 0xff)
                bytes[field + 1] = UInt8(value >> 8)
                if field == 12 { bytes[14] = 0xff; bytes[15] = 0xff }
            case 7:
                bytes.removeSubrange(Int.random(in: 0..<bytes.count, using: &rng)...)
            case 8:
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, at: at)
            default:
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &rng)))
            }
            do {
                let image = try McuBootImage(bytes: bytes)
                parsed += 1
                checkInvariants(image)
                _ = try? image.verifyHash()
                _ = try? image.verifySignature(publicKey: key)
                _ = image.dependencies
                _ = image.securityCounter
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(parsed + refused == 2500)
        #expect(refused > 0)
    }

    /// What any parsed image must satisfy.
    private func checkInvariants(_ image: McuBootImage) {
        #expect(image.hashedRange.upperBound <= image.endOffset)
        #expect(image.endOffset <= image.bytes.count)
        #expect(image.payloadRange.upperBound <= image.bytes.count)
        #expect(image.hash.count == image.hashAlgorithm.digestSize)
        for tlv in image.tlvs {
            #expect(tlv.offset + 4 + tlv.value.count <= image.endOffset)
        }
    }
}
