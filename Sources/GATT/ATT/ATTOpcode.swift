/// An ATT PDU's first byte (Core spec Vol 3 Part F 3.3.1 and 3.4.8).
///
/// Bit 6 marks a command (no response is sent), bit 7 an authentication signature. Values the
/// spec does not define are kept as they arrived, so that a server can answer "Request Not
/// Supported" naming them.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8

    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ATT_ERROR_RSP.
    public static let errorResponse = ATTOpcode(rawValue: 0x01)
    /// ATT_EXCHANGE_MTU_REQ.
    public static let exchangeMTURequest = ATTOpcode(rawValue: 0x02)
    /// ATT_EXCHANGE_MTU_RSP.
    public static let exchangeMTUResponse = ATTOpcode(rawValue: 0x03)
    /// ATT_FIND_INFORMATION_REQ.
    public static let findInformationRequest = ATTOpcode(rawValue: 0x04)
    /// ATT_FIND_INFORMATION_RSP.
    public static let findInformationResponse = ATTOpcode(rawValue: 0x05)
    /// ATT_FIND_BY_TYPE_VALUE_REQ.
    public static let findByTypeValueRequest = ATTOpcode(rawValue: 0x06)
    /// ATT_FIND_BY_TYPE_VALUE_RSP.
    public static let findByTypeValueResponse = ATTOpcode(rawValue: 0x07)
    /// ATT_READ_BY_TYPE_REQ.
    public static let readByTypeRequest = ATTOpcode(rawValue: 0x08)
    /// ATT_READ_BY_TYPE_RSP.
    public static let readByTypeResponse = ATTOpcode(rawValue: 0x09)
    /// ATT_READ_REQ.
    public static let readRequest = ATTOpcode(rawValue: 0x0A)
    /// ATT_READ_RSP.
    public static let readResponse = ATTOpcode(rawValue: 0x0B)
    /// ATT_READ_BLOB_REQ.
    public static let readBlobRequest = ATTOpcode(rawValue: 0x0C)
    /// ATT_READ_BLOB_RSP.
    public static let readBlobResponse = ATTOpcode(rawValue: 0x0D)
    /// ATT_READ_MULTIPLE_REQ.
    public static let readMultipleRequest = ATTOpcode(rawValue: 0x0E)
    /// ATT_READ_MULTIPLE_RSP.
    public static let readMultipleResponse = ATTOpcode(rawValue: 0x0F)
    /// ATT_READ_BY_GROUP_TYPE_REQ.
    public static let readByGroupTypeRequest = ATTOpcode(rawValue: 0x10)
    /// ATT_READ_BY_GROUP_TYPE_RSP.
    public static let readByGroupTypeResponse = ATTOpcode(rawValue: 0x11)
    /// ATT_WRITE_REQ.
    public static let writeRequest = ATTOpcode(rawValue: 0x12)
    /// ATT_WRITE_RSP.
    public static let writeResponse = ATTOpcode(rawValue: 0x13)
    /// ATT_PREPARE_WRITE_REQ.
    public static let prepareWriteRequest = ATTOpcode(rawValue: 0x16)
    /// ATT_PREPARE_WRITE_RSP.
    public static let prepareWriteResponse = ATTOpcode(rawValue: 0x17)
    /// ATT_EXECUTE_WRITE_REQ.
    public static let executeWriteRequest = ATTOpcode(rawValue: 0x18)
    /// ATT_EXECUTE_WRITE_RSP.
    public static let executeWriteResponse = ATTOpcode(rawValue: 0x19)
    /// ATT_HANDLE_VALUE_NTF.
    public static let handleValueNotification = ATTOpcode(rawValue: 0x1B)
    /// ATT_HANDLE_VALUE_IND.
    public static let handleValueIndication = ATTOpcode(rawValue: 0x1D)
    /// ATT_HANDLE_VALUE_CFM.
    public static let handleValueConfirmation = ATTOpcode(rawValue: 0x1E)
    /// ATT_READ_MULTIPLE_VARIABLE_REQ.
    public static let readMultipleVariableRequest = ATTOpcode(rawValue: 0x20)
    /// ATT_READ_MULTIPLE_VARIABLE_RSP.
    public static let readMultipleVariableResponse = ATTOpcode(rawValue: 0x21)
    /// ATT_MULTIPLE_HANDLE_VALUE_NTF.
    public static let multipleHandleValueNotification = ATTOpcode(rawValue: 0x23)
    /// ATT_WRITE_CMD.
    public static let writeCommand = ATTOpcode(rawValue: 0x52)
    /// ATT_SIGNED_WRITE_CMD.
    public static let signedWriteCommand = ATTOpcode(rawValue: 0xD2)

    /// Whether bit 6 (Command Flag) is set: the receiver sends no response.
    public var isCommand: Bool { rawValue & 0x40 != 0 }

    /// Whether this is a request that expects a response (the requests of the spec's table).
    public var isRequest: Bool { Self.requests.contains(self) }

    /// Whether this is a response to a request, the Error Response included.
    public var isResponse: Bool { Self.responseFor.values.contains(self) || self == .errorResponse }

    /// The response a request expects (nil for anything that is not a request).
    public var expectedResponse: ATTOpcode? { Self.responseFor[self] }

    private static let requests: Set<ATTOpcode> = Set(responseFor.keys)
    private static let responseFor: [ATTOpcode: ATTOpcode] = [
        .exchangeMTURequest: .exchangeMTUResponse,
        .findInformationRequest: .findInformationResponse,
        .findByTypeValueRequest: .findByTypeValueResponse,
        .readByTypeRequest: .readByTypeResponse,
        .readRequest: .readResponse,
        .readBlobRequest: .readBlobResponse,
        .readMultipleRequest: .readMultipleResponse,
        .readByGroupTypeRequest: .readByGroupTypeResponse,
        .writeRequest: .writeResponse,
        .prepareWriteRequest: .prepareWriteResponse,
        .executeWriteRequest: .executeWriteResponse,
        .readMultipleVariableRequest: .readMultipleVariableResponse,
    ]

    private static let names: [UInt8: String] = [
        0x01: "ATT_ERROR_RSP", 0x02: "ATT_EXCHANGE_MTU_REQ", 0x03: "ATT_EXCHANGE_MTU_RSP",
        0x04: "ATT_FIND_INFORMATION_REQ", 0x05: "ATT_FIND_INFORMATION_RSP", 0x06: "ATT_FIND_BY_TYPE_VALUE_REQ",
        0x07: "ATT_FIND_BY_TYPE_VALUE_RSP", 0x08: "ATT_READ_BY_TYPE_REQ", 0x09: "ATT_READ_BY_TYPE_RSP",
        0x0A: "ATT_READ_REQ", 0x0B: "ATT_READ_RSP", 0x0C: "ATT_READ_BLOB_REQ", 0x0D: "ATT_READ_BLOB_RSP",
        0x0E: "ATT_READ_MULTIPLE_REQ", 0x0F: "ATT_READ_MULTIPLE_RSP", 0x10: "ATT_READ_BY_GROUP_TYPE_REQ",
        0x11: "ATT_READ_BY_GROUP_TYPE_RSP", 0x12: "ATT_WRITE_REQ", 0x13: "ATT_WRITE_RSP",
        0x16: "ATT_PREPARE_WRITE_REQ", 0x17: "ATT_PREPARE_WRITE_RSP", 0x18: "ATT_EXECUTE_WRITE_REQ",
        0x19: "ATT_EXECUTE_WRITE_RSP", 0x1B: "ATT_HANDLE_VALUE_NTF", 0x1D: "ATT_HANDLE_VALUE_IND",
        0x1E: "ATT_HANDLE_VALUE_CFM", 0x20: "ATT_READ_MULTIPLE_VARIABLE_REQ", 0x21: "ATT_READ_MULTIPLE_VARIABLE_RSP",
        0x23: "ATT_MULTIPLE_HANDLE_VALUE_NTF", 0x52: "ATT_WRITE_CMD", 0xD2: "ATT_SIGNED_WRITE_CMD",
    ]

    /// Whether the spec defines this opcode.
    public var isDefined: Bool { Self.names[rawValue] != nil }

    /// The spec's name, e.g. `ATT_WRITE_CMD`, or the hex value of an undefined opcode.
    public var description: String {
        Self.names[rawValue] ?? "ATT opcode 0x" + String(rawValue, radix: 16, uppercase: true)
    }
}
