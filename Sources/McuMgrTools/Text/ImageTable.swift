import Hex
import McuMgr

/// A device's image table as Go `mcumgr image list` prints it, and its JSON form
/// (`{"images": [...]}`, each slot in `ImageSlot`'s own form, hashes as lowercase hex).
public struct ImageTable: Encodable, Sendable {
    /// The slots, in the device's order.
    public let images: [ImageSlot]

    /// Makes the table of `slots`.
    public init(_ slots: [ImageSlot]) { images = slots }

    /// The table as Go `mcumgr` prints it:
    ///
    /// ```
    /// Images:
    ///  image=0 slot=0
    ///     version: 1.0.0
    ///     bootable: true
    ///     flags: active confirmed
    ///     hash: 5e1f…
    /// ```
    public var text: String {
        var lines = ["Images:"]
        for slot in images {
            lines.append(" image=\(slot.image) slot=\(slot.slot)")
            lines.append("    version: \(slot.version)")
            lines.append("    bootable: \(slot.bootable)")
            lines.append("    flags: \(slot.flagNames.joined(separator: " "))")
            lines.append("    hash: \(slot.hash.hexString)")
        }
        if images.isEmpty { lines.append(" (none)") }
        return lines.joined(separator: "\n")
    }
}
