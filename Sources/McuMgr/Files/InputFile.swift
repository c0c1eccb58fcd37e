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

    /// The bytes of the file at `path`, read in pieces up to `maximumSize` (so that a device
    /// such as `/dev/zero` ends in an error, and `/dev/null` reads as empty).
    public static func read(_ path: String, maximumSize: Int = InputFile.maximumSize) throws(InputFileError) -> [UInt8] {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .missing(path) }
        guard !isDirectory else { throw .directory(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadable(path) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var status = stat()
        if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 {
            bytes.reserveCapacity(min(Int(status.st_size), maximumSize))
        }
        var piece = [UInt8](repeating: 0, count: min(1 << 20, maximumSize + 1))
        while true {
            let count = piece.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path)
            }
            if count == 0 { return bytes }
            guard bytes.count + count <= maximumSize else { throw .tooLarge(path, limit: maximumSize) }
            bytes += piece[..<count]
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
    /// The file is not an MCUboot image (too short, wrong magic, broken TLVs …).
    case notAnImage(String, McuBootError)
    /// The image's contents do not hash to the hash it carries: altered or corrupted after signing.
    case hashMismatch(String, expected: [UInt8], actual: [UInt8])

    /// The file's path.
    public var path: String {
        switch self {
        case .missing(let path), .directory(let path), .unreadable(let path), .empty(let path),
             .tooLarge(let path, _), .notAnImage(let path, _), .hashMismatch(let path, _, _):
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
        case .notAnImage(let path, let error): return "\(path) is not a valid MCUboot image: \(error); \(rebuild)"
        case .hashMismatch(let path, let expected, let actual):
            return "\(path) is not a valid MCUboot image: \(McuBootError.hashMismatch(expected: expected, actual: actual)); \(rebuild)"
        }
    }
}
