/// An SMP-level status (`enum mcumgr_err_t`): the top-level `rc` of a response.
public struct SMPReturnCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number (unknown numbers are kept).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Success.
    public static let ok = SMPReturnCode(rawValue: 0)
    /// Unknown error.
    public static let unknown = SMPReturnCode(rawValue: 1)
    /// Out of memory or no buffer free.
    public static let noMemory = SMPReturnCode(rawValue: 2)
    /// Invalid input (including undecodable CBOR and missing fields).
    public static let invalidArgument = SMPReturnCode(rawValue: 3)
    /// Timed out.
    public static let timeout = SMPReturnCode(rawValue: 4)
    /// No such entry.
    public static let noEntry = SMPReturnCode(rawValue: 5)
    /// The current state does not allow the command.
    public static let badState = SMPReturnCode(rawValue: 6)
    /// The response is too large for the device's buffer.
    public static let messageTooLarge = SMPReturnCode(rawValue: 7)
    /// Group, command or operation not supported.
    public static let notSupported = SMPReturnCode(rawValue: 8)
    /// Corrupt request (e.g. truncated packet).
    public static let corrupt = SMPReturnCode(rawValue: 9)
    /// Busy with another command.
    public static let busy = SMPReturnCode(rawValue: 10)
    /// Access denied.
    public static let accessDenied = SMPReturnCode(rawValue: 11)
    /// The requested protocol version is too old for the device.
    public static let unsupportedTooOld = SMPReturnCode(rawValue: 12)
    /// The requested protocol version is too new for the device.
    public static let unsupportedTooNew = SMPReturnCode(rawValue: 13)

    private static let table: [Int: (name: String, text: String)] = [
        0: ("MGMT_ERR_EOK", "success"),
        1: ("MGMT_ERR_EUNKNOWN", "unknown error"),
        2: ("MGMT_ERR_ENOMEM", "the device is out of memory or buffers"),
        3: ("MGMT_ERR_EINVAL", "invalid request (bad CBOR or a missing or ill-typed field)"),
        4: ("MGMT_ERR_ETIMEOUT", "the device timed out"),
        5: ("MGMT_ERR_ENOENT", "no such entry"),
        6: ("MGMT_ERR_EBADSTATE", "the device's current state does not allow this command"),
        7: ("MGMT_ERR_EMSGSIZE", "the response does not fit the device's buffer"),
        8: ("MGMT_ERR_ENOTSUP", "command not supported by the device"),
        9: ("MGMT_ERR_ECORRUPT", "the device received a corrupt request"),
        10: ("MGMT_ERR_EBUSY", "the device is busy with another command"),
        11: ("MGMT_ERR_EACCESSDENIED", "access denied"),
        12: ("MGMT_ERR_UNSUPPORTED_TOO_OLD", "the device does not support SMP version 1 requests; use version 2"),
        13: ("MGMT_ERR_UNSUPPORTED_TOO_NEW", "the device does not support SMP version 2 requests; use version 1"),
    ]

    /// The C name of the code, e.g. `MGMT_ERR_ENOTSUP`.
    public var name: String {
        if let entry = Self.table[rawValue] { return entry.name }
        return rawValue >= 256 ? "MGMT_ERR_EPERUSER+\(rawValue - 256)" : "MGMT_ERR_\(rawValue)"
    }

    /// Name, number and meaning, e.g. `MGMT_ERR_ENOTSUP (8): command not supported by the device`.
    public var description: String {
        let text = Self.table[rawValue]?.text ?? (rawValue >= 256 ? "application-defined error" : "unrecognized error")
        return "\(name) (\(rawValue)): \(text)"
    }
}
