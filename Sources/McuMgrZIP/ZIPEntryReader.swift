import Foundation
import ZIPFoundation

/// The files of a zip archive, read with bounds: how many entries are listed, and how many bytes
/// one entry may inflate to (checked against its declared size first, then while inflating, so a
/// zip bomb stops at the bound whatever its headers claim).
public final class ZIPEntryReader {
    /// One file of the archive as its central directory lists it.
    public struct Entry: Sendable, Hashable {
        /// The path inside the archive.
        public var name: String
        /// The size the archive declares for the inflated file.
        public var declaredSize: UInt64
        /// The bytes the file takes in the archive.
        public var compressedSize: UInt64
    }

    /// The most entries read from the central directory.
    public static let maximumEntries = 4096

    private let archive: Archive
    /// The archive's files (directories and links left out), in the central directory's order.
    public let entries: [Entry]

    /// Opens the zip file at `path` and lists its files.
    public init(path: String) throws(ZIPReadError) {
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw .notAZip(path)
        }
        var entries: [Entry] = []
        var count = 0
        for entry in archive {
            count += 1
            guard count <= Self.maximumEntries else { throw .tooManyEntries(limit: Self.maximumEntries) }
            guard entry.type == .file else { continue }
            entries.append(Entry(name: entry.path, declaredSize: entry.uncompressedSize, compressedSize: entry.compressedSize))
        }
        self.entries = entries
    }

    /// The inflated bytes of the file named `name`; a declared size past `limit`, or more bytes than
    /// the declared size once inflated (a lying header), throws `tooLarge`; a CRC that does not match
    /// throws `corrupt`.
    public func contents(of name: String, limit: Int) throws(ZIPReadError) -> [UInt8] {
        guard let entry = archive[name], entry.type == .file else { throw .missingEntry(name) }
        guard entry.uncompressedSize <= UInt64(max(0, limit)) else { throw .tooLarge(name, limit: limit) }
        // No file inflates past the size it declares: a header that lies is a zip bomb, stopped there.
        let limit = Int(entry.uncompressedSize)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(entry.uncompressedSize))
        var overflow = false
        do {
            let checksum = try archive.extract(entry, bufferSize: 64 * 1024) { data in
                guard bytes.count + data.count <= limit else {
                    overflow = true
                    throw ZIPReadError.tooLarge(name, limit: limit)
                }
                bytes.append(contentsOf: data)
            }
            guard checksum == entry.checksum else { throw ZIPReadError.corrupt(name, "its CRC-32 does not match") }
        } catch let error as ZIPReadError {
            throw error
        } catch {
            if overflow { throw .tooLarge(name, limit: limit) }
            throw .corrupt(name, "\(error)")
        }
        guard UInt64(bytes.count) == entry.uncompressedSize else {
            throw .corrupt(name, "it inflates to \(bytes.count) bytes, not the \(entry.uncompressedSize) it declares")
        }
        return bytes
    }
}
