import Hex
/// `McuBootImageInfo` as JSON: snake_case keys, byte strings as lowercase hex, versions in imgtool
/// notation, absent values as `null`.
extension McuBootImageInfo: Encodable {
    private enum Keys: String, CodingKey {
        case fileSize = "file_size", imageEnd = "image_end", header, protectedTLVs = "protected_tlvs", tlvs
        case hash, fileSHA256 = "file_sha256", signature, securityCounter = "security_counter"
        case dependencies, trailer
    }

    /// Writes the JSON form described on the extension.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(fileSize, forKey: .fileSize)
        try c.encode(imageEnd, forKey: .imageEnd)
        try c.encode(HeaderJSON(header), forKey: .header)
        try c.encode(protectedArea.map(AreaJSON.init), forKey: .protectedTLVs)
        try c.encode(AreaJSON(unprotectedArea), forKey: .tlvs)
        try c.encode(
            HashJSON(algorithm: hashAlgorithm.description, value: hash.hexString, computed: computedHash.hexString,
                     verifies: hashVerifies), forKey: .hash)
        try c.encode(fileSHA256.hexString, forKey: .fileSHA256)
        try c.encode(SignatureJSON(types: signatureKinds.map(\.description), key_hash: keyHash.map(\.hexString),
                                   public_key: publicKey.map(\.hexString)), forKey: .signature)
        try c.encode(securityCounter, forKey: .securityCounter)
        try c.encode(dependencies.map { DependencyJSON(image: Int($0.imageID), minimum_version: $0.minimumVersion.description) },
                     forKey: .dependencies)
        try c.encode(trailer.map(TrailerJSON.init), forKey: .trailer)
    }
}

private struct HashJSON: Encodable {
    let algorithm: String, value: String, computed: String, verifies: Bool
}

private struct HeaderJSON: Encodable {
    let magic: UInt32, load_address: UInt32, header_size: UInt16, protected_tlv_size: UInt16, image_size: UInt32
    let flags: UInt32, flag_names: [String], version: String

    init(_ h: McuBootImageInfo.Header) {
        magic = h.magic
        load_address = h.loadAddress
        header_size = h.headerSize
        protected_tlv_size = h.protectedTLVSize
        image_size = h.imageSize
        flags = h.flags.rawValue
        flag_names = h.flagNames
        version = h.version.description
    }
}

private struct AreaJSON: Encodable {
    struct TLVJSON: Encodable {
        let offset: Int, type: UInt16, name: String?, length: Int, value: String

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(offset, forKey: .offset)
            try c.encode(type, forKey: .type)
            try c.encode(name, forKey: .name)
            try c.encode(length, forKey: .length)
            try c.encode(value, forKey: .value)
        }
        private enum CodingKeys: String, CodingKey { case offset, type, name, length, value }
    }
    let offset: Int, magic: UInt16, size: Int, tlvs: [TLVJSON]

    init(_ area: McuBootImageInfo.TLVArea) {
        offset = area.offset
        magic = area.magic
        size = area.size
        tlvs = area.tlvs.map {
            TLVJSON(offset: $0.offset, type: $0.type.rawValue, name: $0.type.name, length: $0.length, value: $0.value.hexString)
        }
    }
}

private struct SignatureJSON: Encodable {
    let types: [String], key_hash: String?, public_key: String?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(types, forKey: .types)
        try c.encode(key_hash, forKey: .key_hash)
        try c.encode(public_key, forKey: .public_key)
    }
    private enum CodingKeys: String, CodingKey { case types, key_hash, public_key }
}

private struct DependencyJSON: Encodable {
    let image: Int, minimum_version: String
}

private struct TrailerJSON: Encodable {
    let padding_size: Int, magic: String, magic_valid: Bool, max_align: Int?
    let image_ok: UInt8?, copy_done: UInt8?, swap_info: UInt8?, swap_size: UInt32?, encryption_key_field_length: Int?

    init(_ t: McuBootImageTrailer) {
        padding_size = t.paddingSize
        magic = t.magic.hexString
        magic_valid = t.hasValidMagic
        max_align = t.maxAlign
        image_ok = t.imageOK
        copy_done = t.copyDone
        swap_info = t.swapInfo
        swap_size = t.swapSize
        encryption_key_field_length = t.encryptionKeyFieldLength
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(padding_size, forKey: .padding_size)
        try c.encode(magic, forKey: .magic)
        try c.encode(magic_valid, forKey: .magic_valid)
        try c.encode(max_align, forKey: .max_align)
        try c.encode(image_ok, forKey: .image_ok)
        try c.encode(copy_done, forKey: .copy_done)
        try c.encode(swap_info, forKey: .swap_info)
        try c.encode(swap_size, forKey: .swap_size)
        try c.encode(encryption_key_field_length, forKey: .encryption_key_field_length)
    }
    private enum CodingKeys: String, CodingKey {
        case padding_size, magic, magic_valid, max_align, image_ok, copy_done, swap_info, swap_size, encryption_key_field_length
    }
}
