/// One type-length-value record of an MCUboot image's TLV area (`struct image_tlv` and its value).
public struct McuBootTLV: Sendable, Hashable {
    /// The record's type (`it_type`).
    public var type: McuBootTLVType
    /// The value bytes (`it_len` of them).
    public var value: [UInt8]
    /// Offset of the record's 4-byte header in the image file (0 for records not read from a file).
    public var offset: Int

    /// Creates a record.
    public init(type: McuBootTLVType, value: [UInt8], offset: Int = 0) {
        self.type = type
        self.value = value
        self.offset = offset
    }
}

/// The info header that opens a TLV area (`struct image_tlv_info`).
enum McuBootTLVArea {
    /// `IMAGE_TLV_INFO_MAGIC`, opening the unprotected area.
    static let unprotectedMagic: UInt16 = 0x6907
    /// `IMAGE_TLV_PROT_INFO_MAGIC`, opening the protected area.
    static let protectedMagic: UInt16 = 0x6908
    /// Size of the info header and of a TLV header.
    static let headerSize = 4

    /// Parses the TLV area at `offset`: its info header must carry `magic` and, when
    /// `expectedSize` is given, that total size. Returns the records and the area's total size.
    static func parse(
        _ bytes: [UInt8], at offset: Int, magic: UInt16, expectedSize: UInt16?
    ) throws(McuBootError) -> (tlvs: [McuBootTLV], size: Int) {
        guard let found = bytes.le16(at: offset), let total = bytes.le16(at: offset + 2) else {
            throw .missingTLVInfo(offset: offset, fileSize: bytes.count)
        }
        guard found == magic else { throw .badTLVMagic(found: found, expected: magic, offset: offset) }
        if let expectedSize, total != expectedSize {
            throw .protectedTLVSizeMismatch(header: expectedSize, tlvInfo: total)
        }
        let size = Int(total)
        guard size >= headerSize else { throw .tlvAreaTooSmall(offset: offset, size: size) }
        let end = offset + size
        guard end <= bytes.count else {
            throw .tlvAreaOverrun(offset: offset, areaSize: size, fileSize: bytes.count)
        }
        var tlvs: [McuBootTLV] = []
        var cursor = offset + headerSize
        while cursor < end {
            guard cursor + headerSize <= end, let type = bytes.le16(at: cursor),
                let length = bytes.le16(at: cursor + 2)
            else { throw .truncatedTLV(offset: cursor, areaEnd: end) }
            let valueStart = cursor + headerSize
            let valueEnd = valueStart + Int(length)
            guard valueEnd <= end else {
                throw .tlvLengthOverrun(
                    type: McuBootTLVType(type), offset: cursor, length: Int(length), areaEnd: end)
            }
            tlvs.append(McuBootTLV(type: McuBootTLVType(type), value: Array(bytes[valueStart..<valueEnd]), offset: cursor))
            cursor = valueEnd
        }
        return (tlvs, size)
    }

    /// The bytes of a TLV area with `magic` holding `tlvs`; empty when `tlvs` is empty (as imgtool).
    static func serialize(_ tlvs: [McuBootTLV], magic: UInt16) -> [UInt8] {
        guard !tlvs.isEmpty else { return [] }
        let total = tlvs.reduce(headerSize) { $0 + headerSize + $1.value.count }
        var out: [UInt8] = []
        out.reserveCapacity(total)
        out.appendLE16(magic)
        out.appendLE16(UInt16(truncatingIfNeeded: total))
        for tlv in tlvs {
            out.appendLE16(tlv.type.rawValue)
            out.appendLE16(UInt16(truncatingIfNeeded: tlv.value.count))
            out.append(contentsOf: tlv.value)
        }
        return out
    }
}
