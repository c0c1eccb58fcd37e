extension ATTPDU {
    /// Decodes one whole PDU; throws for an empty, unknown, unsupported, short or inconsistent PDU.
    public init(decoding pdu: [UInt8]) throws(ATTDecodingError) {
        guard let first = pdu.first else { throw .empty }
        let opcode = ATTOpcode(rawValue: first)
        var reader = ATTReader(bytes: pdu, opcode: opcode)
        switch opcode {
        case .errorResponse:
            try reader.requireLength(exactly: 5)
            let request = ATTOpcode(rawValue: try reader.byte())
            let handle = try reader.uint16()
            self = .errorResponse(request: request, handle: handle, code: ATTErrorCode(rawValue: try reader.byte()))
        case .exchangeMTURequest:
            try reader.requireLength(exactly: 3)
            self = .exchangeMTURequest(clientRxMTU: try reader.uint16())
        case .exchangeMTUResponse:
            try reader.requireLength(exactly: 3)
            self = .exchangeMTUResponse(serverRxMTU: try reader.uint16())
        case .findInformationRequest:
            try reader.requireLength(exactly: 5)
            self = .findInformationRequest(start: try reader.uint16(), end: try reader.uint16())
        case .findInformationResponse:
            self = .findInformationResponse(try Self.findInformationEntries(&reader))
        case .findByTypeValueRequest:
            try reader.requireLength(atLeast: 7)
            self = .findByTypeValueRequest(
                start: try reader.uint16(), end: try reader.uint16(), type: try reader.uint16(), value: reader.rest())
        case .findByTypeValueResponse:
            try reader.requireLength(atLeast: 5)
            guard reader.remaining % 4 == 0 else {
                throw .malformed(opcode: opcode, reason: "handle list of \(reader.remaining) bytes is not a multiple of 4")
            }
            var ranges: [ATTHandleRange] = []
            while reader.remaining > 0 {
                ranges.append(ATTHandleRange(found: try reader.uint16(), groupEnd: try reader.uint16()))
            }
            self = .findByTypeValueResponse(ranges)
        case .readByTypeRequest, .readByGroupTypeRequest:
            try reader.requireLength(atLeast: 7)
            let start = try reader.uint16()
            let end = try reader.uint16()
            guard let type = BluetoothUUID(littleEndian: reader.rest()) else {
                throw .malformed(opcode: opcode, reason: "attribute type of \(pdu.count - 5) bytes is neither a 16-bit nor a 128-bit UUID")
            }
            self = opcode == .readByTypeRequest
                ? .readByTypeRequest(start: start, end: end, type: type)
                : .readByGroupTypeRequest(start: start, end: end, type: type)
        case .readByTypeResponse:
            let entries = try Self.listEntries(&reader, headerSize: 2)
            self = .readByTypeResponse(entries.map { ATTHandleValue(handle: $0.handle, value: $0.value) })
        case .readByGroupTypeResponse:
            let entries = try Self.listEntries(&reader, headerSize: 4)
            self = .readByGroupTypeResponse(entries.map { ATTGroupValue(handle: $0.handle, groupEnd: $0.groupEnd, value: $0.value) })
        case .readRequest:
            try reader.requireLength(exactly: 3)
            self = .readRequest(handle: try reader.uint16())
        case .readResponse:
            self = .readResponse(value: reader.rest())
        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication:
            try reader.requireLength(atLeast: 3)
            let handle = try reader.uint16()
            let value = reader.rest()
            switch opcode {
            case .writeRequest: self = .writeRequest(handle: handle, value: value)
            case .writeCommand: self = .writeCommand(handle: handle, value: value)
            case .handleValueNotification: self = .handleValueNotification(handle: handle, value: value)
            default: self = .handleValueIndication(handle: handle, value: value)
            }
        case .writeResponse:
            try reader.requireLength(exactly: 1)
            self = .writeResponse
        case .handleValueConfirmation:
            try reader.requireLength(exactly: 1)
            self = .handleValueConfirmation
        default:
            throw opcode.isDefined ? .unsupportedOpcode(opcode) : .unknownOpcode(opcode)
        }
    }

    private static func findInformationEntries(_ reader: inout ATTReader) throws(ATTDecodingError) -> [ATTHandleType] {
        try reader.requireLength(atLeast: 2)
        let format = try reader.byte()
        let width: Int
        switch format {
        case 0x01: width = 4
        case 0x02: width = 18
        default: throw .malformed(opcode: reader.opcode, reason: "unknown format 0x\(String(format, radix: 16))")
        }
        guard reader.remaining >= width, reader.remaining % width == 0 else {
            throw .malformed(opcode: reader.opcode, reason: "\(reader.remaining) bytes of entries do not make whole \(width)-byte entries")
        }
        var entries: [ATTHandleType] = []
        while reader.remaining > 0 {
            let handle = try reader.uint16()
            guard let type = BluetoothUUID(littleEndian: try reader.take(width - 2)) else {
                throw .malformed(opcode: reader.opcode, reason: "bad UUID")
            }
            entries.append(ATTHandleType(handle: handle, type: type))
        }
        return entries
    }

    /// Reads the length-prefixed list of Read By Type and Read By Group Type responses.
    private static func listEntries(
        _ reader: inout ATTReader, headerSize: Int
    ) throws(ATTDecodingError) -> [(handle: UInt16, groupEnd: UInt16, value: [UInt8])] {
        try reader.requireLength(atLeast: 2)
        let length = Int(try reader.byte())
        guard length >= headerSize else {
            throw .malformed(opcode: reader.opcode, reason: "entry length \(length) is shorter than its \(headerSize)-byte handles")
        }
        guard reader.remaining >= length, reader.remaining % length == 0 else {
            throw .malformed(opcode: reader.opcode, reason: "\(reader.remaining) bytes of entries do not make whole \(length)-byte entries")
        }
        var entries: [(handle: UInt16, groupEnd: UInt16, value: [UInt8])] = []
        while reader.remaining > 0 {
            let handle = try reader.uint16()
            let end = headerSize == 4 ? try reader.uint16() : 0
            entries.append((handle, end, try reader.take(length - headerSize)))
        }
        return entries
    }
}

/// Why bytes are not a valid ATT PDU.
public enum ATTDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A PDU of no bytes.
    case empty
    /// An opcode the spec does not define.
    case unknownOpcode(ATTOpcode)
    /// An opcode the spec defines but this implementation does not take (prepared writes, signed writes, …).
    case unsupportedOpcode(ATTOpcode)
    /// Fewer bytes than the PDU's fixed part, or a fixed-size PDU of the wrong length.
    case invalidLength(opcode: ATTOpcode, length: Int, expected: String)
    /// The parameters contradict themselves (entry lengths, formats, UUID sizes).
    case malformed(opcode: ATTOpcode, reason: String)

    /// The opcode of the bad PDU, when it had one.
    public var opcode: ATTOpcode? {
        switch self {
        case .empty: return nil
        case .unknownOpcode(let op), .unsupportedOpcode(let op): return op
        case .invalidLength(let op, _, _), .malformed(let op, _): return op
        }
    }

    /// A one-line message.
    public var description: String {
        switch self {
        case .empty: return "empty ATT PDU"
        case .unknownOpcode(let op): return "unknown ATT opcode 0x\(String(op.rawValue, radix: 16, uppercase: true))"
        case .unsupportedOpcode(let op): return "unsupported ATT PDU \(op)"
        case .invalidLength(let op, let length, let expected): return "\(op) of \(length) bytes; expected \(expected)"
        case .malformed(let op, let reason): return "malformed \(op): \(reason)"
        }
    }
}

/// A bounds-checked little-endian reader over one PDU.
struct ATTReader {
    let bytes: [UInt8]
    let opcode: ATTOpcode
    var position = 1

    init(bytes: [UInt8], opcode: ATTOpcode) {
        self.bytes = bytes
        self.opcode = opcode
    }

    var remaining: Int { bytes.count - position }

    func requireLength(exactly length: Int) throws(ATTDecodingError) {
        guard bytes.count == length else { throw .invalidLength(opcode: opcode, length: bytes.count, expected: "\(length)") }
    }

    func requireLength(atLeast length: Int) throws(ATTDecodingError) {
        guard bytes.count >= length else { throw .invalidLength(opcode: opcode, length: bytes.count, expected: "at least \(length)") }
    }

    mutating func byte() throws(ATTDecodingError) -> UInt8 {
        guard remaining >= 1 else { throw .invalidLength(opcode: opcode, length: bytes.count, expected: "more") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint16() throws(ATTDecodingError) -> UInt16 {
        guard remaining >= 2 else { throw .invalidLength(opcode: opcode, length: bytes.count, expected: "more") }
        defer { position += 2 }
        return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
    }

    mutating func take(_ count: Int) throws(ATTDecodingError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .invalidLength(opcode: opcode, length: bytes.count, expected: "more") }
        defer { position += count }
        return Array(bytes[position..<(position + count)])
    }

    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[position...])
    }
}
