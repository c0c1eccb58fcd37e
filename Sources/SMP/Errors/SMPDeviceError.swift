import CBOR

/// An error the device answered with, typed by where it came from.
public enum SMPDeviceError: Error, Hashable, Sendable {
    /// An SMP-level status (`rc`), or a group error translated for SMP v1; `reason` is the optional `rsn` text.
    case status(SMPReturnCode, reason: String?)
    /// An OS group error.
    case os(OSGroupError)
    /// An image group error.
    case image(ImageGroupError)
    /// A statistics group error.
    case stats(StatsGroupError)
    /// A settings group error.
    case settings(SettingsGroupError)
    /// A file-system group error.
    case fs(FSGroupError)
    /// A shell group error.
    case shell(ShellGroupError)
    /// An enumeration group error.
    case enumeration(EnumerationGroupError)
    /// A Zephyr basic group error.
    case basic(BasicGroupError)
    /// An error of a group without a table here (e.g. an application group).
    case otherGroup(group: UInt16, rc: Int)

    /// Reads the status of a response map: `err {group, rc}` first, then a non-zero `rc`; `nil`
    /// means success. A malformed status (an `err` that is not a map of a 16-bit `group` and an
    /// integer `rc`, an `rc` that is not an integer of at most 32 bits) throws
    /// `SMPError.invalidResponse` naming it: it is never read as success.
    public init?(response: CBORValue) throws(SMPError) {
        if let err = response["err"] {
            guard case .map = err else { throw .invalidResponse("\"err\" is not a map: \(err)") }
            guard let groupValue = err["group"], let group = groupValue.uint64Value.flatMap({ UInt16(exactly: $0) }) else {
                throw .invalidResponse("\"err\" has no 16-bit \"group\": \(err)")
            }
            guard let rcValue = err["rc"], let rc = rcValue.intValue, Int32(exactly: rc) != nil else {
                throw .invalidResponse("\"err\" has no 32-bit integer \"rc\": \(err)")
            }
            guard rc != 0 else { return nil }
            self.init(group: SMPGroup(rawValue: group), rc: rc)
            return
        }
        if let rcValue = response["rc"] {
            guard let code = rcValue.intValue, Int32(exactly: code) != nil else {
                let what: String
                switch rcValue {
                case .unsigned, .negative: what = "an integer too big for a status"
                default: what = "not an integer"
                }
                throw .invalidResponse("\"rc\" is \(what): \(rcValue)")
            }
            guard code != 0 else { return nil }
            var reason: String?
            if let rsn = response["rsn"] {
                guard let text = rsn.textValue else { throw .invalidResponse("\"rsn\" is not text: \(rsn)") }
                reason = text
            }
            self = .status(SMPReturnCode(rawValue: code), reason: reason)
            return
        }
        return nil
    }

    /// Makes the typed error for a group's code.
    public init(group: SMPGroup, rc: Int) {
        switch group {
        case .os: self = .os(.init(rawValue: rc))
        case .image: self = .image(.init(rawValue: rc))
        case .stats: self = .stats(.init(rawValue: rc))
        case .settings: self = .settings(.init(rawValue: rc))
        case .fs: self = .fs(.init(rawValue: rc))
        case .shell: self = .shell(.init(rawValue: rc))
        case .enumeration: self = .enumeration(.init(rawValue: rc))
        case .zephyrBasic: self = .basic(.init(rawValue: rc))
        default: self = .otherGroup(group: group.rawValue, rc: rc)
        }
    }

    /// The SMP-level status, when this is one.
    public var status: SMPReturnCode? {
        if case .status(let code, _) = self { return code }
        return nil
    }

    /// The group and the group's own code (SMP v2's `err {group, rc}`), when this is a group
    /// error; `nil` for an SMP-level status.
    public var groupError: (group: SMPGroup, rc: Int)? {
        switch self {
        case .status: return nil
        case .os(let e): return (OSGroupError.group, e.rawValue)
        case .image(let e): return (ImageGroupError.group, e.rawValue)
        case .stats(let e): return (StatsGroupError.group, e.rawValue)
        case .settings(let e): return (SettingsGroupError.group, e.rawValue)
        case .fs(let e): return (FSGroupError.group, e.rawValue)
        case .shell(let e): return (ShellGroupError.group, e.rawValue)
        case .enumeration(let e): return (EnumerationGroupError.group, e.rawValue)
        case .basic(let e): return (BasicGroupError.group, e.rawValue)
        case .otherGroup(let group, let rc): return (SMPGroup(rawValue: group), rc)
        }
    }
}

extension SMPDeviceError: CustomStringConvertible {
    /// The error's name, number and meaning.
    public var description: String {
        switch self {
        case .status(let code, let reason):
            return reason.map { "\(code) (\($0))" } ?? code.description
        case .os(let e): return e.description
        case .image(let e): return e.description
        case .stats(let e): return e.description
        case .settings(let e): return e.description
        case .fs(let e): return e.description
        case .shell(let e): return e.description
        case .enumeration(let e): return e.description
        case .basic(let e): return e.description
        case .otherGroup(let group, let rc): return "error \(rc) of group \(SMPGroup(rawValue: group))"
        }
    }
}
