/// Why a zip archive, or one of its files, could not be read.
public enum ZIPReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not a zip archive (no end of central directory record), or cannot be opened.
    case notAZip(String)
    /// The central directory lists more entries than are read.
    case tooManyEntries(limit: Int)
    /// The archive has no file by this name.
    case missingEntry(String)
    /// The file declares or inflates to more than `limit` bytes.
    case tooLarge(String, limit: Int)
    /// The file's compressed data is broken: an inflate error, a wrong CRC-32 or size.
    case corrupt(String, String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .notAZip(let path): return "\(path) is not a zip archive"
        case .tooManyEntries(let limit): return "the archive lists more than \(limit) entries"
        case .missingEntry(let name): return "the archive has no file \(name)"
        case .tooLarge(let name, let limit): return "\(name) inflates to more than \(limit) bytes (a zip bomb, or the wrong file)"
        case .corrupt(let name, let why): return "\(name) is corrupt in the archive: \(why)"
        }
    }
}
