/// A SUIT device (nRF54H20 with nRF Connect SDK's SUIT group, 66): its manifest roles, its DFU and
/// cache partitions, and how it processes an envelope. Set as ``DeviceConfiguration/suit``.
public struct SUITDeviceConfiguration: Sendable {
    /// A manifest role the device supports, and what is installed for it.
    public struct Role: Sendable, Hashable {
        /// The role (two nibbles: domain, index; 0x20 the application root).
        public var role: UInt32
        /// The manifest class's UUID.
        public var classID: [UInt8]
        /// The vendor's UUID.
        public var vendorID: [UInt8]
        /// The installed manifest's sequence number; nil: nothing installed.
        public var sequenceNumber: UInt64?
        /// The installed manifest's semantic version, if it carries one.
        public var semanticVersion: [Int]?

        /// Makes a role.
        public init(role: UInt32, classID: [UInt8], vendorID: [UInt8], sequenceNumber: UInt64?, semanticVersion: [Int]? = nil) {
            self.role = role
            self.classID = classID
            self.vendorID = vendorID
            self.sequenceNumber = sequenceNumber
            self.semanticVersion = semanticVersion
        }
    }

    /// Ways the device misbehaves, for testing clients against a hostile SUIT device.
    public enum Hostility: String, Sendable, CaseIterable {
        /// Processes forever: polls are answered with nothing, and the device never installs or reboots.
        case neverFinishes = "never-finishes"
        /// Asks for `file://missing.bin` instead of what the envelope names.
        case asksForUnknownResource = "unknown-resource"
        /// Asks for the same image again, in a new session, each time it has received it.
        case asksEndlessly = "asks-endlessly"
        /// Answers upload chunks with offsets that go backwards.
        case rewindsOffsets = "rewinds-offsets"
    }

    /// The roles, in the order the manifest list gives them; an update installs to the first role
    /// whose sequence number it passes (0x20, the application root, by default).
    public var roles: [Role] = [
        Role(role: 0x20, classID: SUITDeviceConfiguration.uuid(0x3f), vendorID: SUITDeviceConfiguration.uuid(0x76), sequenceNumber: 1, semanticVersion: [1, 0, 0]),
        Role(role: 0x21, classID: SUITDeviceConfiguration.uuid(0x21), vendorID: SUITDeviceConfiguration.uuid(0x76), sequenceNumber: nil),
        Role(role: 0x22, classID: SUITDeviceConfiguration.uuid(0x22), vendorID: SUITDeviceConfiguration.uuid(0x76), sequenceNumber: 1),
    ]
    /// Bytes of the DFU partition (the largest envelope).
    public var dfuPartitionSize = 0x80000
    /// Cache partitions by target id and size in bytes.
    public var cachePartitions: [Int: Int] = [1: 0x40000]
    /// How long the device waits for an image it asked for (`CONFIG_MGMT_SUITFU_GRP_SUIT_IMAGE_FETCH_TIMEOUT_MS`).
    public var fetchTimeout: Duration = .seconds(30)
    /// How long processing takes after the last image arrived, before the device reboots to install.
    public var processingTime: Duration = .milliseconds(200)
    /// How the device misbehaves, if it does.
    public var hostility: Hostility?

    /// Makes the default: roles 0x20 (installed, sequence number 1), 0x21 (empty) and 0x22, a 512 KiB
    /// DFU partition and one 256 KiB cache partition (target 1).
    public init() {}

    /// A 16-byte UUID made of one repeated byte, for the default roles.
    static func uuid(_ byte: UInt8) -> [UInt8] { [UInt8](repeating: byte, count: 16) }
}
