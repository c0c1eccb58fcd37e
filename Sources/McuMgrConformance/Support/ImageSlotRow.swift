import CBOR
import Hex

/// One slot of the image table (image state read), as the checks compare tables.
struct ImageSlotRow: Sendable, Hashable, CustomStringConvertible {
    /// The image number (0 when the device lists one image and omits it).
    let image: Int
    /// The slot.
    let slot: Int
    /// The version text.
    let version: String
    /// The image hash (SHA-256 TLV).
    let hash: [UInt8]
    /// Flags, false when absent.
    let bootable: Bool
    let pending: Bool
    let confirmed: Bool
    let active: Bool
    let permanent: Bool

    /// The rows of an answer's `images` array; `nil` when there is no such array or an entry is
    /// not a map with an integer slot.
    static func rows(of value: CBORValue?) -> [ImageSlotRow]? {
        guard let list = value?["images"]?.arrayValue else { return nil }
        var rows: [ImageSlotRow] = []
        for entry in list {
            guard entry.mapEntries != nil, let slot = entry["slot"]?.intValue else { return nil }
            rows.append(
                ImageSlotRow(
                    image: entry["image"]?.intValue ?? 0, slot: slot, version: entry["version"]?.textValue ?? "",
                    hash: entry["hash"]?.bytesValue ?? [], bootable: entry["bootable"]?.boolValue ?? false,
                    pending: entry["pending"]?.boolValue ?? false, confirmed: entry["confirmed"]?.boolValue ?? false,
                    active: entry["active"]?.boolValue ?? false, permanent: entry["permanent"]?.boolValue ?? false))
        }
        return rows
    }

    /// The row of `slot` of `image` in `rows`.
    static func find(_ rows: [ImageSlotRow], image: Int = 0, slot: Int) -> ImageSlotRow? {
        rows.first { $0.image == image && $0.slot == slot }
    }

    /// `image 0 slot 1 1.2.3 3f2a…: pending`.
    var description: String {
        let flags = [("active", active), ("confirmed", confirmed), ("pending", pending), ("permanent", permanent)].filter(\.1).map(\.0)
        return "image \(image) slot \(slot) \(version) \(hash.prefix(4).hexString)…: " + (flags.isEmpty ? "no flags" : flags.joined(separator: " "))
    }

    /// A table in one line.
    static func describe(_ rows: [ImageSlotRow]) -> String {
        rows.isEmpty ? "no images" : rows.map(\.description).joined(separator: "; ")
    }
}

extension ImageSlotRow {
    /// Why a reset would change what runs (a slot marked for the next boot, a running image on
    /// test that would revert), or `nil` when it would not.
    static func resetWouldChange(_ rows: [ImageSlotRow]) -> String? {
        if let pending = rows.first(where: \.pending) { return "\(pending) is marked for the next boot" }
        if let onTest = rows.first(where: { $0.active && !$0.confirmed }) { return "\(onTest) runs on test and would revert" }
        return nil
    }
}
