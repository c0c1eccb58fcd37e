import Foundation
import McuBoot
import Testing

/// `McuBootImageInfo` against what the venv's `imgtool dumpinfo` prints for every committed fixture,
/// field by field (JSON for the values, the human format for the flag names).
@Suite("MCUboot image info against imgtool dumpinfo")
struct McuBootImageInfoTests {
    /// imgtool's JSON for a file, decoded loosely.
    struct Dump: Decodable {
        struct TLVInfo: Decodable { let magic: UInt16?; let tlv_tot: Int? }
        struct TLV: Decodable { let type: UInt16; let type_name: String; let len: Int; let data: String }
        struct Area: Decodable { let tlv_hdr_prot: TLVInfo; let tlvs_prot: [TLV]; let tlv_hdr: TLVInfo; let tlvs: [TLV] }
        struct Header: Decodable {
            let magic: UInt32, load_addr: UInt32, hdr_size: UInt16, protected_tlv_size: UInt16, img_size: UInt32
            let flags: UInt32, version: String
        }
        struct Trailer: Decodable {
            let magic: String?, image_ok: UInt8?, copy_done: UInt8?, swap_info: UInt8?, swap_size: UInt32?, key_field_len: Int?
        }
        let header: Header
        let tlv_area: Area
        let trailer: Trailer
    }

    static func dump(_ path: String) throws -> (json: Dump, human: String) {
        let text = try Imgtool.run(["dumpinfo", "-f", "json", path])
        let json = try JSONDecoder().decode(Dump.self, from: Data(text[try #require(text.firstIndex(of: "{"))...].utf8))
        return (json, try Imgtool.run(["dumpinfo", path]))
    }

    /// The flag names of the human format's `flags:` field (`0x0` when none is set).
    static func flagNames(human: String) -> [String] {
        let lines = human.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("flags") }),
              let end = lines[start...].firstIndex(where: { $0.hasPrefix("version") }) else { return ["?"] }
        return lines[start..<end].compactMap { line in
            let parts = line.split(separator: " ").map(String.init)
            guard let name = parts.last(where: { $0.first?.isLetter == true && $0 != "flags" && $0 != ":" }) else { return nil }
            return name.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" } ? name : nil
        }
    }

    @Test("every field equals imgtool dumpinfo's", arguments: Fixtures.entries)
    func fields(entry: Fixtures.Entry) throws {
        guard Imgtool.available() else { return }
        let path = Fixtures.directory.appendingPathComponent(entry.image).path
        let (dump, human) = try Self.dump(path)
        let info = McuBootImageInfo(image: try McuBootImage(bytes: Fixtures.bytes(entry.image)))

        // Header.
        #expect(info.header.magic == dump.header.magic)
        #expect(info.header.loadAddress == dump.header.load_addr)
        #expect(info.header.headerSize == dump.header.hdr_size)
        #expect(info.header.protectedTLVSize == dump.header.protected_tlv_size)
        #expect(info.header.imageSize == dump.header.img_size)
        #expect(info.header.flags.rawValue == dump.header.flags)
        #expect(info.header.flagNames == Self.flagNames(human: human), "\(human)")
        let v = info.header.version
        #expect("\(v.major).\(v.minor).\(v.revision)+\(v.build)" == dump.header.version)

        // TLV areas.
        func check(_ area: McuBootImageInfo.TLVArea?, _ hdr: Dump.TLVInfo, _ tlvs: [Dump.TLV], protected: Bool) {
            #expect(area?.magic == hdr.magic)
            #expect(area?.size == hdr.tlv_tot)
            #expect(area?.isProtected ?? protected == protected)
            let mine = area?.tlvs ?? []
            #expect(mine.count == tlvs.count)
            for (tlv, want) in zip(mine, tlvs) {
                #expect(tlv.type.rawValue == want.type)
                #expect((tlv.type.name ?? "UNKNOWN") == want.type_name)
                #expect(tlv.length == want.len)
                #expect(tlv.value == bytes(hex: want.data))
            }
        }
        check(info.protectedArea, dump.tlv_area.tlv_hdr_prot, dump.tlv_area.tlvs_prot, protected: true)
        check(info.unprotectedArea, dump.tlv_area.tlv_hdr, dump.tlv_area.tlvs, protected: false)
        #expect(human.contains("TLV area (offset: \(String(info.unprotectedArea.offset, radix: 16, uppercase: false).withHexPrefix))"))

        // What the TLVs mean.
        let all = dump.tlv_area.tlvs_prot + dump.tlv_area.tlvs
        let hashTLV = try #require(dump.tlv_area.tlvs.first { $0.type_name.hasPrefix("SHA") })
        #expect(info.hashAlgorithm.description == "SHA-" + hashTLV.type_name.dropFirst(3))
        #expect(info.hash == bytes(hex: hashTLV.data))
        #expect(info.hashVerifies)
        #expect(info.keyHash.map { _ in true } == (all.contains { $0.type_name == "KEYHASH" || $0.type_name == "PUBKEY" } ? true : nil))
        if let keyHash = all.first(where: { $0.type_name == "KEYHASH" }) { #expect(info.keyHash == bytes(hex: keyHash.data)) }
        #expect(info.publicKey == all.first { $0.type_name == "PUBKEY" }.map { bytes(hex: $0.data) })
        let signatureNames = dump.tlv_area.tlvs.map(\.type_name).filter { ["RSA2048", "ECDSASIG", "RSA3072", "ED25519"].contains($0) }
        #expect(info.signatureKinds.map { $0.tlvType.name } == signatureNames)
        let counter = all.first { $0.type_name == "SEC_CNT" }.map { bytes(hex: $0.data) }
        #expect(info.securityCounter == counter.map { UInt32($0[0]) | UInt32($0[1]) << 8 | UInt32($0[2]) << 16 | UInt32($0[3]) << 24 })
        let dependencies = all.filter { $0.type_name == "DEPENDENCY" }.map { bytes(hex: $0.data) }
        #expect(info.dependencies.map(\.tlvValue) == dependencies)

        // Padding and trailer.
        if let magic = dump.trailer.magic {
            let trailer = try #require(info.trailer)
            #expect(trailer.magic == bytes(hex: magic))
            #expect(trailer.hasValidMagic)
            #expect(trailer.imageOK == dump.trailer.image_ok)
            #expect(trailer.copyDone == dump.trailer.copy_done)
            #expect(trailer.swapInfo == dump.trailer.swap_info)
            #expect(trailer.swapSize == dump.trailer.swap_size)
            #expect(trailer.encryptionKeyFieldLength == dump.trailer.key_field_len)
            #expect(trailer.paddingSize == info.fileSize - info.imageEnd)
        } else {
            #expect(info.trailer == nil)
            #expect(info.imageEnd == info.fileSize)
        }
    }

    @Test("the padded, confirmed fixture has a trailer with image_ok set, as imgtool says")
    func confirmed() throws {
        let info = McuBootImageInfo(image: try Fixtures.image("padded-confirm"))
        let trailer = try #require(info.trailer)
        #expect(trailer.maxAlign == 8)
        #expect(trailer.imageOK == 0x01)
        #expect(trailer.copyDone == 0xff)
        #expect(info.fileSize == 0x1000)
        guard Imgtool.available() else { return }
        let human = try Self.dump(Fixtures.directory.appendingPathComponent("images/padded-confirm.bin").path).human
        #expect(human.contains("image_ok:    SET (0x1)"))
    }

    @Test("hashVerifies agrees with imgtool verify on a tampered copy", arguments: Fixtures.entries)
    func tamperedHash(entry: Fixtures.Entry) throws {
        guard Imgtool.available() else { return }
        var bytes = try Fixtures.bytes(entry.image)
        let image = try McuBootImage(bytes: bytes)
        bytes[image.payloadRange.lowerBound] ^= 0x01
        let info = McuBootImageInfo(image: try McuBootImage(bytes: bytes))
        #expect(!info.hashVerifies)
        #expect(info.computedHash != info.hash)
        #expect(try !Imgtool.verify(image: bytes, keyPath: nil))
        #expect(try Imgtool.verify(image: Fixtures.bytes(entry.image), keyPath: nil))
    }

    @Test("the JSON form names every field")
    func json() throws {
        let info = McuBootImageInfo(image: try Fixtures.image("signed-rsa3072-full"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(info)) as? [String: Any])
        let header = try #require(object["header"] as? [String: Any])
        #expect(header["version"] as? String == "5.1.2+3")
        #expect(header["header_size"] as? Int == 0x200)
        let hash = try #require(object["hash"] as? [String: Any])
        #expect(hash["algorithm"] as? String == "SHA-256")
        #expect(hash["verifies"] as? Bool == true)
        let signature = try #require(object["signature"] as? [String: Any])
        #expect(signature["types"] as? [String] == ["RSA-3072-PSS"])
        #expect((signature["public_key"] as? String)?.count == info.publicKey.map { $0.count * 2 })
        #expect(object["security_counter"] as? Int == 7)
        #expect(object["trailer"] is NSNull)
        #expect((object["protected_tlvs"] as? [String: Any])?["magic"] as? Int == 0x6908)
    }
}

extension String {
    /// `"0x"` + the string.
    fileprivate var withHexPrefix: String { "0x" + self }
}
