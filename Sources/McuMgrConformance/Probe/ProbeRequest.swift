import CBOR
import SMP

/// One request as the prober puts it on the wire, well-formed or not: any version, any
/// operation, and a length field that may say something else than the payload's length.
struct ProbeRequest: Sendable {
    /// The protocol version bits.
    var version: SMPVersion
    /// The operation.
    var operation: SMPOperation
    /// The management group.
    var group: UInt16
    /// The command within the group.
    var command: UInt8
    /// The sequence number (the prober sets it when it sends).
    var sequence: UInt8 = 0
    /// The payload bytes.
    var payload: [UInt8]
    /// The length field when it is to lie about the payload; `nil` for the payload's length.
    var declaredLength: Int?

    /// A request with `payload` as it is.
    init(_ operation: SMPOperation, group: UInt16, command: UInt8, payload: [UInt8], version: SMPVersion = .v2) {
        self.version = version
        self.operation = operation
        self.group = group
        self.command = command
        self.payload = payload
    }

    /// A request whose payload is `value` in canonical CBOR (sorted keys, definite lengths, as
    /// smpclient's cbor2 writes it).
    init(_ operation: SMPOperation, group: SMPGroup, command: UInt8, value: CBORValue = .map([]), version: SMPVersion = .v2) {
        self.init(operation, group: group.rawValue, command: command, payload: CBORWriter().encode(value), version: version)
    }

    /// The packet: the 8-byte header (big-endian fields) and the payload.
    var bytes: [UInt8] {
        let length = declaredLength ?? payload.count
        return [
            version.rawValue << 3 | operation.rawValue, 0, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
            UInt8(group >> 8), UInt8(group & 0xff), sequence, command,
        ] + payload
    }

    /// An echo request (`{"d": text}`).
    static func echo(_ text: String, operation: SMPOperation = .write, version: SMPVersion = .v2) -> ProbeRequest {
        ProbeRequest(operation, group: .os, command: 0, value: .textMap(["d": .text(text)]), version: version)
    }

    /// The text of an echo request (`d`), when the payload is a map holding one.
    var echoedText: String? {
        (try? CBORReader().decode(payload))?["d"]?.textValue
    }
}

/// Sizes of CBOR heads, for requests sized to the byte.
enum CBORHead {
    /// The bytes of a head carrying `argument` (an integer, or a string's or container's length).
    static func size(_ argument: Int) -> Int {
        switch argument {
        case ..<24: return 1
        case ..<0x100: return 2
        case ..<0x10000: return 3
        case ..<0x1_0000_0000: return 5
        default: return 9
        }
    }
}
