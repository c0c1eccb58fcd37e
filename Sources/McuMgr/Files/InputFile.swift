#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import McuBoot

/// Reading local files (images to upload, lists of devices), with typed errors
/// (`mcumgr` reports them all as invalid input files, exit status 4).
public enum InputFile {
    /// The largest file a command reads: 256 MiB, far past any firmware image or file a device holds.
    public static let maximumSize = 256 << 20

    /// The bytes of the file at `path`, read in pieces up to `maximumSize`. A regular file that
    /// `stat` already shows to be larger is refused before reading; a named pipe, socket or block
    /// device is refused at once (a pipe with no writer would wait forever). A character device
    /// is read without waiting: `/dev/null` reads as empty, `/dev/zero` ends in an error.
    public static func read(_ path: String, maximumSize: Int = InputFile.maximumSize) throws(InputFileError) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw errno == ENOENT || errno == ENOTDIR ? .missing(path) : .unreadable(path)
        }
        try check(status, path: path, maximumSize: maximumSize)
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path) }
        defer { close(fd) }
        // What was opened may not be what was looked at: check it again.
        guard fstat(fd, &status) == 0 else { throw .unreadable(path) }
        try check(status, path: path, maximumSize: maximumSize)
        var bytes: [UInt8] = []
        if status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 { bytes.reserveCapacity(Int(status.st_size)) }
        var piece = [UInt8](repeating: 0, count: min(1 << 20, maximumSize + 1))
        while true {
            let count = piece.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw errno == EAGAIN ? .notAFile(path, kind: "device with nothing to read") : .unreadable(path)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= maximumSize else { throw .tooLarge(path, limit: maximumSize) }
            bytes += piece[..<count]
        }
    }

    /// The text of the file at `path` (a devices list, a profiles file, a PEM key): UTF-8, a
    /// leading byte order mark dropped. Line ends stay as written (`\n`, `\r\n` or `\r`).
    public static func readText(_ path: String, maximumSize: Int) throws(InputFileError) -> String {
        var bytes = try read(path, maximumSize: maximumSize)[...]
        if bytes.starts(with: byteOrderMark) { bytes = bytes.dropFirst(byteOrderMark.count) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notText(path) }
        return text
    }

    /// Refuses, without opening it, what at `path` is not a file to read (see ``read(_:maximumSize:)``):
    /// for readers that open the path themselves, such as a zip library.
    public static func checkReadable(_ path: String, maximumSize: Int = InputFile.maximumSize) throws(InputFileError) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw errno == ENOENT || errno == ENOTDIR ? .missing(path) : .unreadable(path)
        }
        try check(status, path: path, maximumSize: maximumSize)
    }

    /// UTF-8's byte order mark, which Windows editors and spreadsheets put before the text.
    public static let byteOrderMark: [UInt8] = [0xef, 0xbb, 0xbf]

    /// Refuses what is not a file to read: a directory, a named pipe, a socket, a block device,
    /// or a regular file larger than `maximumSize`.
    private static func check(_ status: stat, path: String, maximumSize: Int) throws(InputFileError) {
        switch status.st_mode & S_IFMT {
        case S_IFDIR: throw .directory(path)
        case S_IFIFO: throw .notAFile(path, kind: "named pipe (FIFO)")
        case S_IFSOCK: throw .notAFile(path, kind: "socket")
        case S_IFBLK: throw .notAFile(path, kind: "block device")
        case S_IFREG: if status.st_size > maximumSize { throw .tooLarge(path, limit: maximumSize) }
        default: break
        }
    }

    /// The bytes of the file at `path`, which must not be empty (a file to upload).
    public static func readNonEmpty(_ path: String) throws(InputFileError) -> [UInt8] {
        let bytes = try read(path)
        guard !bytes.isEmpty else { throw .empty(path) }
        return bytes
    }

    /// The MCUboot image in the file at `path`, parsed and with its hash checked, ready to upload.
    public static func mcubootImage(_ path: String) throws(InputFileError) -> McuBootImage {
        let bytes = try readNonEmpty(path)
        do {
            let image = try McuBootImage(bytes: bytes)
            try image.verifyHash()
            return image
        } catch .hashMismatch(let expected, let actual) {
            throw .hashMismatch(path, expected: expected, actual: actual)
        } catch {
            throw .notAnImage(path, error)
        }
    }
}

/// Why a local file could not be used.
public enum InputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing exists at the path.
    case missing(String)
    /// The path is a directory.
    case directory(String)
    /// The file exists but cannot be read (permissions, a socket, an I/O error).
    case unreadable(String)
    /// The file is empty, and there is nothing to upload.
    case empty(String)
    /// The file is longer than any command reads (a device file such as `/dev/zero`, or the wrong file).
    case tooLarge(String, limit: Int)
    /// The path names no file to read but a named pipe, a socket, a block device or a device that
    /// has nothing to read (`kind` says which).
    case notAFile(String, kind: String)
    /// A text file (devices list, profiles, key) is not UTF-8 text.
    case notText(String)
    /// The file is not an MCUboot image (too short, wrong magic, broken TLVs …).
    case notAnImage(String, McuBootError)
    /// The image's contents do not hash to the hash it carries: altered or corrupted after signing.
    case hashMismatch(String, expected: [UInt8], actual: [UInt8])

    /// The file's path.
    public var path: String {
        switch self {
        case .missing(let path), .directory(let path), .unreadable(let path), .empty(let path),
             .tooLarge(let path, _), .notAFile(let path, _), .notText(let path), .notAnImage(let path, _), .hashMismatch(let path, _, _):
            return path
        }
    }

    /// What is wrong with the file and what to do.
    public var description: String {
        let rebuild = "build it with MCUboot signing (e.g. imgtool sign)"
        switch self {
        case .missing(let path): return "no such file: \(path); check the path"
        case .directory(let path): return "\(path) is a directory, not a file"
        case .unreadable(let path): return "cannot read \(path); check its permissions"
        case .empty(let path): return "\(path) is empty; there is nothing to upload"
        case .tooLarge(let path, let limit): return "\(path) is longer than \(limit) bytes; check that it is the right file"
        case .notAFile(let path, let kind): return "\(path) is a \(kind), not a regular file; save its contents to a file and give that"
        case .notText(let path): return "\(path) is not UTF-8 text; save it as UTF-8"
        case .notAnImage(let path, let error): return "\(path) is not a valid MCUboot image: \(error); \(rebuild)"
        case .hashMismatch(let path, let expected, let actual):
            return "\(path) is not a valid MCUboot image: \(McuBootError.hashMismatch(expected: expected, actual: actual)); \(rebuild)"
        }
    }
}
