/// One image slot as the device would list it, for inspection by tests.
public struct SlotState: Sendable, Hashable, CustomStringConvertible {
    /// Image number.
    public let image: Int
    /// Slot within the image (0 primary, 1 secondary).
    public let slot: Int
    /// The image's version.
    public let version: ImageVersion
    /// The image's SHA-256 TLV value.
    public let hash: [UInt8]
    /// The non-bootable flag is clear.
    public let bootable: Bool
    /// Marked for the next boot.
    public let pending: Bool
    /// Confirmed.
    public let confirmed: Bool
    /// Running.
    public let active: Bool
    /// Stays after the next boot.
    public let permanent: Bool

    /// E.g. `image 0 slot 1 v1.2.3 pending`.
    public var description: String {
        let flags = [("active", active), ("confirmed", confirmed), ("pending", pending), ("permanent", permanent)]
            .filter(\.1).map(\.0)
        return "image \(image) slot \(slot) v\(version) " + (flags.isEmpty ? "-" : flags.joined(separator: " "))
    }
}
