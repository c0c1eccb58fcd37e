/// Faults the link injects, decided by a seeded random generator so that a run can be repeated.
public struct FaultConfiguration: Sendable, Hashable {
    /// Seed of the generator deciding each fault.
    public var seed: UInt64 = 1
    /// Percent of packets dropped.
    public var dropPercent: Double = 0
    /// Percent of packets delivered twice.
    public var duplicatePercent: Double = 0
    /// Percent of packets held back and delivered after the next one (or after `delay`).
    public var reorderPercent: Double = 0
    /// Percent of packets delayed by `delay`.
    public var delayPercent: Double = 0
    /// The extra delay of a delayed packet, and the longest a reordered packet is held.
    public var delay: Duration = .milliseconds(100)
    /// Which packets the percentages apply to.
    public var directions: FaultDirections = .both
    /// The device resets (without answering) at the first upload chunk at or past this image offset; once.
    public var resetAtUploadOffset: Int? = nil
    /// The link drops (without an answer) at the first upload chunk at or past this image offset; once.
    public var disconnectAtUploadOffset: Int? = nil
    /// How long the link stays down after a disconnect fault before it accepts a reconnection.
    public var reconnectDelay: Duration = .milliseconds(500)
    /// The device answers this many image requests with `MGMT_ERR_EBUSY` (rc 10) before handling
    /// any, as a device busy writing external flash does.
    public var busyImageRequests = 0
    /// The image commands those busy answers hit: state (0), upload (1), erase (5) by default.
    public var busyImageCommands: Set<UInt8> = [0, 1, 5]
    /// The device refuses every image upload at its first chunk with `MGMT_ERR_EACCESSDENIED`
    /// (rc 11), as an application's upload check hook (`CONFIG_MCUMGR_GRP_IMG_UPLOAD_CHECK_HOOK`,
    /// "app reject") does with an image meant for another product.
    public var refusesImageUploads = false
    /// After its next reset (a reset command, a fault or a power cycle) the device never answers
    /// again, as a device stuck in its bootloader or bricked by the new image.
    public var staysDownAfterReset = false

    /// Makes a configuration without faults.
    public init() {}

    /// Whether any per-packet fault is configured.
    var hasPacketFaults: Bool { dropPercent > 0 || duplicatePercent > 0 || reorderPercent > 0 || delayPercent > 0 }
}
