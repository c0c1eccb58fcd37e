/// An ATT Error Response's error code (Core spec Vol 3 Part F 3.4.1.1, Table 3.4), with the spec's names.
///
/// Codes 0x80–0x9F are application errors and 0xE0–0xFF common profile and service errors
/// (Core Specification Supplement Part B); other unknown values are kept as they arrived.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8

    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The attribute handle given was not valid on this server.
    public static let invalidHandle = ATTErrorCode(rawValue: 0x01)
    /// The attribute cannot be read.
    public static let readNotPermitted = ATTErrorCode(rawValue: 0x02)
    /// The attribute cannot be written.
    public static let writeNotPermitted = ATTErrorCode(rawValue: 0x03)
    /// The attribute PDU was invalid.
    public static let invalidPDU = ATTErrorCode(rawValue: 0x04)
    /// The attribute requires authentication before it can be read or written.
    public static let insufficientAuthentication = ATTErrorCode(rawValue: 0x05)
    /// The server does not support the request received from the client.
    public static let requestNotSupported = ATTErrorCode(rawValue: 0x06)
    /// The offset specified was past the end of the attribute.
    public static let invalidOffset = ATTErrorCode(rawValue: 0x07)
    /// The attribute requires authorization before it can be read or written.
    public static let insufficientAuthorization = ATTErrorCode(rawValue: 0x08)
    /// Too many prepare writes have been queued.
    public static let prepareQueueFull = ATTErrorCode(rawValue: 0x09)
    /// No attribute found within the given attribute handle range.
    public static let attributeNotFound = ATTErrorCode(rawValue: 0x0A)
    /// The attribute cannot be read using the Read Blob Request.
    public static let attributeNotLong = ATTErrorCode(rawValue: 0x0B)
    /// The encryption key size used for encrypting this link is too short.
    public static let encryptionKeySizeTooShort = ATTErrorCode(rawValue: 0x0C)
    /// The attribute value length is invalid for the operation.
    public static let invalidAttributeValueLength = ATTErrorCode(rawValue: 0x0D)
    /// The request encountered an unlikely error and could not be completed.
    public static let unlikelyError = ATTErrorCode(rawValue: 0x0E)
    /// The attribute requires encryption before it can be read or written.
    public static let insufficientEncryption = ATTErrorCode(rawValue: 0x0F)
    /// The attribute type is not a supported grouping attribute.
    public static let unsupportedGroupType = ATTErrorCode(rawValue: 0x10)
    /// Insufficient resources to complete the request.
    public static let insufficientResources = ATTErrorCode(rawValue: 0x11)
    /// The server requests the client to rediscover the database.
    public static let databaseOutOfSync = ATTErrorCode(rawValue: 0x12)
    /// The attribute parameter value was not allowed.
    public static let valueNotAllowed = ATTErrorCode(rawValue: 0x13)
    /// A write request was rejected (common profile error).
    public static let writeRequestRejected = ATTErrorCode(rawValue: 0xFC)
    /// The Client Characteristic Configuration Descriptor is improperly configured (common profile error).
    public static let cccdImproperlyConfigured = ATTErrorCode(rawValue: 0xFD)
    /// A request cannot be serviced because an operation is already in progress (common profile error).
    public static let procedureAlreadyInProgress = ATTErrorCode(rawValue: 0xFE)
    /// An attribute value is out of range (common profile error).
    public static let outOfRange = ATTErrorCode(rawValue: 0xFF)

    private static let names: [UInt8: String] = [
        0x01: "Invalid Handle", 0x02: "Read Not Permitted", 0x03: "Write Not Permitted", 0x04: "Invalid PDU",
        0x05: "Insufficient Authentication", 0x06: "Request Not Supported", 0x07: "Invalid Offset",
        0x08: "Insufficient Authorization", 0x09: "Prepare Queue Full", 0x0A: "Attribute Not Found",
        0x0B: "Attribute Not Long", 0x0C: "Encryption Key Size Too Short", 0x0D: "Invalid Attribute Value Length",
        0x0E: "Unlikely Error", 0x0F: "Insufficient Encryption", 0x10: "Unsupported Group Type",
        0x11: "Insufficient Resources", 0x12: "Database Out Of Sync", 0x13: "Value Not Allowed",
        0xFC: "Write Request Rejected", 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured",
        0xFE: "Procedure Already in Progress", 0xFF: "Out of Range",
    ]

    /// Whether the server refused because the link lacks pairing: authentication, authorization,
    /// encryption or its key size (0x05, 0x08, 0x0C, 0x0F).
    public var needsPairing: Bool {
        [Self.insufficientAuthentication, .insufficientAuthorization, .encryptionKeySizeTooShort, .insufficientEncryption].contains(self)
    }

    /// The spec's name, e.g. "Attribute Not Found"; application and reserved codes are named by range.
    public var name: String {
        if let name = Self.names[rawValue] { return name }
        switch rawValue {
        case 0x80...0x9F: return "Application Error"
        case 0xE0...0xFB: return "Common Profile and Service Error"
        default: return "Reserved"
        }
    }

    /// The name with the hex value, e.g. "Attribute Not Found (0x0A)".
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "\(name) (0x\(hex.count == 1 ? "0" + hex : hex))"
    }
}
