import Hex

/// One slot of the device's image table (image group command 0, state read).
///
/// Flags a device leaves out (Zephyr's "frugal list" sends only true ones) read as `false`;
/// `image` absent (a single-image device) reads as 0.
public struct ImageSlot: Codable, Sendable, Equatable, Hashable {
    /// The image number (0 for single-image devices).
    public var image: Int
    /// The slot: 0 primary (runs), 1 secondary (upload target).
    public var slot: Int
    /// The version, `major.minor.revision[.build]`.
    public var version: String
    /// The image's SHA-256 TLV value, as test and confirm take it (not the SHA-256 of the file).
    public var hash: [UInt8]
    /// The image may be booted.
    public var bootable: Bool
    /// The image will run at the next boot.
    public var pending: Bool
    /// The image is confirmed (will stay after the next reset).
    public var confirmed: Bool
    /// The image is running.
    public var active: Bool
    /// The pending image will stay without confirmation.
    public var permanent: Bool

    /// Makes a slot record.
    public init(
        image: Int = 0, slot: Int, version: String, hash: [UInt8], bootable: Bool = true,
        pending: Bool = false, confirmed: Bool = false, active: Bool = false, permanent: Bool = false
    ) {
        self.image = image
        self.slot = slot
        self.version = version
        self.hash = hash
        self.bootable = bootable
        self.pending = pending
        self.confirmed = confirmed
        self.active = active
        self.permanent = permanent
    }

    /// Reads a slot record, with absent flags false and an absent image number 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        image = try c.decodeIfPresent(Int.self, forKey: .image) ?? 0
        slot = try c.decode(Int.self, forKey: .slot)
        version = try c.decode(String.self, forKey: .version)
        hash = try c.decodeByteString(forKey: .hash)
        bootable = try c.decodeIfPresent(Bool.self, forKey: .bootable) ?? false
        pending = try c.decodeIfPresent(Bool.self, forKey: .pending) ?? false
        confirmed = try c.decodeIfPresent(Bool.self, forKey: .confirmed) ?? false
        active = try c.decodeIfPresent(Bool.self, forKey: .active) ?? false
        permanent = try c.decodeIfPresent(Bool.self, forKey: .permanent) ?? false
    }

    /// Writes the record as the device does (the hash as a byte string, hex text in JSON).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(image, forKey: .image)
        try c.encode(slot, forKey: .slot)
        try c.encode(version, forKey: .version)
        try c.encodeByteString(hash, forKey: .hash)
        try c.encode(bootable, forKey: .bootable)
        try c.encode(pending, forKey: .pending)
        try c.encode(confirmed, forKey: .confirmed)
        try c.encode(active, forKey: .active)
        try c.encode(permanent, forKey: .permanent)
    }

    private enum CodingKeys: String, CodingKey {
        case image, slot, version, hash, bootable, pending, confirmed, active, permanent
    }
}

extension ImageSlot: CustomStringConvertible {
    /// The flags that are set, in the order Go `mcumgr` prints them: active, confirmed, pending, permanent.
    public var flagNames: [String] {
        [("active", active), ("confirmed", confirmed), ("pending", pending), ("permanent", permanent)].filter(\.1).map(\.0)
    }

    /// One line: `image=0 slot=1 version=1.2.0 bootable=true flags=pending hash=<64 hex digits>`.
    public var description: String {
        "image=\(image) slot=\(slot) version=\(version) bootable=\(bootable) flags=\(flagNames.joined(separator: ",")) hash=\(hash.hexString)"
    }
}
