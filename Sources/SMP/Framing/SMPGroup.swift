/// Management group identifiers (the header's 16-bit group field).
public struct SMPGroup: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The group number on the wire.
    public let rawValue: UInt16
    /// Makes a group from its number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// OS / default management (0).
    public static let os = SMPGroup(rawValue: 0)
    /// Image management (1).
    public static let image = SMPGroup(rawValue: 1)
    /// Statistics (2).
    public static let stats = SMPGroup(rawValue: 2)
    /// Settings, also called config (3).
    public static let settings = SMPGroup(rawValue: 3)
    /// Logs, Apache Mynewt only (4).
    public static let log = SMPGroup(rawValue: 4)
    /// Crash testing (5).
    public static let crash = SMPGroup(rawValue: 5)
    /// Split images (6).
    public static let split = SMPGroup(rawValue: 6)
    /// Run-time tests (7).
    public static let run = SMPGroup(rawValue: 7)
    /// File system (8).
    public static let fs = SMPGroup(rawValue: 8)
    /// Shell (9).
    public static let shell = SMPGroup(rawValue: 9)
    /// Enumeration (10).
    public static let enumeration = SMPGroup(rawValue: 10)
    /// Zephyr basic management (63).
    public static let zephyrBasic = SMPGroup(rawValue: 63)
    /// First application-defined group (64).
    public static let perUser = SMPGroup(rawValue: 64)

    /// The group's usual name.
    public var description: String {
        switch rawValue {
        case 0: return "os"
        case 1: return "image"
        case 2: return "stat"
        case 3: return "settings"
        case 4: return "log"
        case 5: return "crash"
        case 6: return "split"
        case 7: return "run"
        case 8: return "fs"
        case 9: return "shell"
        case 10: return "enum"
        case 63: return "zephyr-basic"
        default: return rawValue >= 64 ? "user-\(rawValue)" : "group-\(rawValue)"
        }
    }
}
