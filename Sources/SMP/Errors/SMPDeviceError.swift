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

    /// Reads the status of a response map: `err {group, rc}` first, then a non-zero `rc`; `nil` means success.
    public init?(response: CBORValue) {
        if let err = response["err"], let group = err["group"]?.intValue, let rc = err["rc"]?.intValue {
            guard rc != 0, let g = UInt16(exactly: group) else { return nil }
            self.init(group: SMPGroup(rawValue: g), rc: rc)
            return
        }
        if let rc = response["rc"] {
            guard let code = rc.intValue else {
                self = .status(.unknown, reason: "response carries a non-integer rc: \(rc)")
                return
            }
            guard code != 0 else { return nil }
            self = .status(SMPReturnCode(rawValue: code), reason: response["rsn"]?.textValue)
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
