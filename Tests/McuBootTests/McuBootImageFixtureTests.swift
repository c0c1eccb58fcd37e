import Crypto
import Foundation
import McuBoot
import Testing

/// Every imgtool-made fixture parses to what `imgtool dumpinfo` / `imgtool verify` reported.
@Suite("MCUboot images made by imgtool")
struct McuBootImageFixtureTests {
    @Test("version and hash equal imgtool's", arguments: Fixtures.entries)
    func versionAndHash(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        #expect(image.version == McuBootVersion(string: entry.version))
        let dumped = entry.dumpinfo.header.version
        #expect(image.version.description == (dumped.hasSuffix("+0") ? String(dumped.dropLast(2)) : dumped))
        #expect(image.hash == bytes(hex: entry.hash))
        #expect(image.computedHash() == bytes(hex: entry.hash))
    }

    @Test("header fields equal dumpinfo's", arguments: Fixtures.entries)
    func header(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        let expected = entry.dumpinfo.header
        #expect(expected.magic == McuBootImageHeader.magic)
        #expect(image.header.loadAddress == expected.load_addr)
        #expect(image.header.headerSize == expected.hdr_size)
        #expect(image.header.protectedTLVSize == expected.protected_tlv_size)
        #expect(image.header.imageSize == expected.img_size)
        #expect(image.header.flags.rawValue == expected.flags)
        #expect(image.isBootable == (expected.flags & 0x10 == 0))
        // The header serialises back to the file's first 32 bytes.
        #expect(image.header.bytes == Array(image.bytes.prefix(32)))
    }

    @Test("TLVs equal dumpinfo's, with imgtool's names", arguments: Fixtures.entries)
    func tlvs(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        let area = entry.dumpinfo.tlv_area
        func check(_ tlvs: [McuBootTLV], _ expected: [Fixtures.DumpInfo.TLV]) {
            #expect(tlvs.count == expected.count)
            for (tlv, want) in zip(tlvs, expected) {
                #expect(tlv.type.rawValue == want.type)
                #expect(tlv.type.name ?? "UNKNOWN" == want.type_name)
                #expect(tlv.value.count == want.len)
                #expect(tlv.value == bytes(hex: want.data))
            }
        }
        check(image.protectedTLVs, area.tlvs_prot)
        check(image.unprotectedTLVs, area.tlvs)
        if let tot = area.tlv_hdr_prot.tlv_tot {
            #expect(image.header.protectedTLVSize == tot)
        } else {
            #expect(image.protectedTLVs.isEmpty && image.header.protectedTLVSize == 0)
        }
        let unprotectedStart = image.hashedRange.upperBound
        #expect(image.endOffset - unprotectedStart == Int(try #require(area.tlv_hdr.tlv_tot)))
    }

    @Test("verifyHash passes, and a flipped byte gives hashMismatch", arguments: Fixtures.entries)
    func hashVerification(entry: Fixtures.Entry) throws {
        let original = try Fixtures.bytes(entry.image)
        let image = try McuBootImage(bytes: original)
        try image.verifyHash()

        // One flipped byte in the payload, in the header padding (if any), in the header's version
        // and in the protected TLVs (if any): all are covered by the hash.
        var offsets = [image.payloadRange.lowerBound, image.payloadRange.upperBound - 1, 20, 24]
        if image.header.headerSize > 32 { offsets.append(32) }
        if let last = image.protectedTLVs.last { offsets.append(last.offset + 4) }
        for offset in offsets {
            var tampered = original
            tampered[offset] ^= 0x01
            let reparsed = try McuBootImage(bytes: tampered)
            let error = mcuBootError { try reparsed.verifyHash() }
            #expect(error == .hashMismatch(expected: image.hash, actual: reparsed.computedHash()), "offset \(offset)")
            #expect(reparsed.computedHash() != image.hash)
        }
    }

    @Test("fileSHA256 is SHA-256 of the whole file", arguments: Fixtures.entries)
    func fileSHA(entry: Fixtures.Entry) throws {
        let bytes = try Fixtures.bytes(entry.image)
        let image = try McuBootImage(bytes: bytes)
        #expect(image.fileSHA256 == Array(SHA256.hash(data: bytes)))
        #expect(image.bytes == bytes)
        // The image hash is not the file hash (the file also holds the unprotected TLVs).
        #expect(image.fileSHA256 != image.hash)
    }

    @Test("hash algorithm and signatures are named from the TLVs")
    func kinds() throws {
        #expect(try Fixtures.image("unsigned").hashAlgorithm == .sha256)
        #expect(try Fixtures.image("unsigned").signatures.isEmpty)
        #expect(try Fixtures.image("sha384").hashAlgorithm == .sha384)
        #expect(try Fixtures.image("sha384").hash.count == 48)
        let sha512 = try Fixtures.image("signed-ed25519-sha512-full")
        #expect(sha512.hashAlgorithm == .sha512)
        #expect(sha512.signatures.map(\.kind) == [.ed25519])
        #expect(sha512.tlvs(ofType: .publicKey).count == 1)
        #expect(try Fixtures.image("signed-ecdsa-p256").signatures.map(\.kind) == [.ecdsa])
        #expect(try Fixtures.image("signed-ed25519").signatures.map(\.kind) == [.ed25519])
        #expect(try Fixtures.image("signed-ed25519").signatures.first?.value.count == 64)
    }

    @Test("protected TLVs: security counter, dependency and custom TLVs")
    func protectedTLVs() throws {
        let image = try Fixtures.image("protected-tlvs")
        #expect(image.securityCounter == 42)
        #expect(image.dependencies == [McuBootImageDependency(imageID: 1, minimumVersion: McuBootVersion(major: 2, minor: 3, revision: 4, build: 5))])
        #expect(image.protectedTLVs.map(\.type) == [.securityCounter, .dependency, McuBootTLVType(0xa0), McuBootTLVType(0xa1)])
        #expect(image.protectedTLVs[2].value == [1, 2, 3, 4, 5])
        #expect(image.protectedTLVs[3].value == Array("hello".utf8))
        #expect(McuBootTLVType(0xa0).name == nil)
        #expect(McuBootTLVType(0xa0).description == "unknown (0xa0)")
        #expect(McuBootTLVType.securityCounter.description == "SEC_CNT (0x50)")
        // The hash covers the protected area.
        #expect(image.hashedRange.upperBound == image.payloadRange.upperBound + 46)

        let auto = try Fixtures.image("signed-ecdsa-p256-seccnt")
        #expect(auto.securityCounter == McuBootVersion(major: 4, minor: 5, revision: 6).defaultSecurityCounter)
        #expect(auto.securityCounter == 0x0405_0006)
    }

    @Test("flags: non-bootable and RAM load")
    func flags() throws {
        let image = try Fixtures.image("flags")
        #expect(image.flags == [.nonBootable, .ramLoad])
        #expect(!image.isBootable)
        #expect(image.header.loadAddress == 0x2000_8000)
        #expect(image.flags.description == "[NON_BOOTABLE, RAM_LOAD]")
        #expect(try Fixtures.image("unsigned").isBootable)
    }

    @Test("a slot-padded image parses; the trailer is outside the image")
    func padded() throws {
        let image = try Fixtures.image("padded-confirm")
        #expect(image.bytes.count == 0x1000)
        #expect(image.endOffset < image.bytes.count)
        #expect(Array(image.bytes.suffix(16)) == [0x77, 0xc2, 0x95, 0xf3, 0x60, 0xd2, 0xef, 0x7f, 0x35, 0x52, 0x50, 0x0f, 0x2c, 0xb6, 0x79, 0x80])
        try image.verifyHash()
    }

    @Test("header padding: 0xff with --pad-header, zeros from a zero-prefixed input")
    func headerPadding() throws {
        let padded = try Fixtures.image("header-0x200")
        #expect(padded.bytes[32..<0x200].allSatisfy { $0 == 0xff })
        let zero = try Fixtures.image("zero-header")
        #expect(zero.bytes[32..<0x200].allSatisfy { $0 == 0 })
        #expect(Array(zero.bytes[zero.payloadRange]) == Array(padded.bytes[padded.payloadRange]))
    }
}
