import Foundation
import McuBoot
import McuMgr

/// Reading local files, with the exit status for input errors.
enum InputFile {
    /// The bytes of the file at `path`; a missing or unreadable file fails with status 4.
    static func read(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Failure(.input, "no such file: \(path); check the path")
        }
        guard !isDirectory.boolValue else { throw Failure(.input, "\(path) is a directory, not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(.input, "cannot read \(path); check its permissions")
        }
        return [UInt8](data)
    }

    /// The MCUboot image in the file at `path`, with its hash checked; anything else fails with status 4.
    static func mcubootImage(_ path: String) throws -> McuBootImage {
        let bytes = try read(path)
        do {
            let image = try McuBootImage(bytes: bytes)
            try image.verifyHash()
            return image
        } catch {
            throw Failure(.input, "\(path) is not a valid MCUboot image: \(error); build it with MCUboot signing (e.g. imgtool sign)")
        }
    }

    /// Writes `bytes` to `path`; failure has status 4.
    static func write(_ bytes: [UInt8], to path: String) throws {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw Failure(.input, "cannot write \(path): \(error)")
        }
    }
}

/// The image table in JSON: `{"images": [...]}`, each slot in `ImageSlot`'s own form (hashes as hex).
struct ImageTable: Encodable {
    let images: [ImageSlot]

    init(_ slots: [ImageSlot]) { images = slots }

    /// The table as Go mcumgr prints it.
    static func text(_ slots: [ImageSlot]) -> String {
        var lines = ["Images:"]
        for s in slots {
            let flags = [("active", s.active), ("confirmed", s.confirmed), ("pending", s.pending), ("permanent", s.permanent)]
                .filter(\.1).map(\.0).joined(separator: " ")
            lines.append(" image=\(s.image) slot=\(s.slot)")
            lines.append("    version: \(s.version)")
            lines.append("    bootable: \(s.bootable)")
            lines.append("    flags: \(flags)")
            lines.append("    hash: \(Format.hex(s.hash))")
        }
        if slots.isEmpty { lines.append(" (none)") }
        return lines.joined(separator: "\n")
    }
}
