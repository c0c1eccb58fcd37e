#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import McuBoot
import McuMgr

/// DFU packages and SUIT envelopes named on the command line: `dfu_application.zip` (read through
/// ``ZIPLibrary``), or a `.suit` file whose resources are the files beside it.
public enum PackageFile {
    /// Whether the file at `path` is a zip (it starts with a zip signature, or is named `*.zip`).
    public static func isZip(_ path: String) -> Bool {
        if path.lowercased().hasSuffix(".zip") { return true }
        // Non-blocking, and regular files only: a named pipe without a writer would block the open
        // (and the read) forever; the input file check refuses it after this, by name.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        var magic = [UInt8](repeating: 0, count: 4)
        let count = magic.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 4) }
        return count == 4 && magic == [0x50, 0x4b, 0x03, 0x04]
    }

    /// Whether the file at `path` is a SUIT envelope (named `*.suit`).
    public static func isSUITEnvelope(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".suit")
    }

    /// Whether the file is a package or an envelope rather than a single MCUboot image.
    public static func isPackage(_ path: String) -> Bool {
        isSUITEnvelope(path) || isZip(path)
    }

    /// Reads the package at `path`: a zip's manifest and files, or a `.suit` envelope with the files
    /// beside it that it names as `file://NAME`.
    public static func read(_ path: String, limits: FirmwarePackageLimits = FirmwarePackageLimits()) throws(PackageFileError) -> FirmwarePackage {
        if isSUITEnvelope(path) { return try envelope(path) }
        do {
            try InputFile.checkReadable(path)
        } catch {
            throw .input(error)
        }
        do throws(FirmwarePackageError) {
            return try FirmwarePackage(archive: try DynamicZIPArchive(path: path), limits: limits)
        } catch {
            throw .package(path, error)
        }
    }

    /// A `.suit` envelope and the resources it names that lie beside it.
    private static func envelope(_ path: String) throws(PackageFileError) -> FirmwarePackage {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.readNonEmpty(path)
        } catch {
            throw .input(error)
        }
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let parsed: FirmwarePackage
        do throws(FirmwarePackageError) {
            parsed = try FirmwarePackage(suitEnvelope: bytes, file: name)
        } catch {
            throw .package(path, error)
        }
        var resources: [String: [UInt8]] = [:]
        for reference in parsed.envelope?.envelope.resources ?? [] where reference.uri.hasPrefix("file://") {
            let file = String(reference.uri.dropFirst("file://".count))
            guard !file.isEmpty, !file.contains("/"), file != ".", file != "..",
                  FileManager.default.fileExists(atPath: directory + file) else { continue }
            do {
                resources[file] = try InputFile.read(directory + file)
            } catch {
                throw .input(error)
            }
        }
        do throws(FirmwarePackageError) {
            return try FirmwarePackage(suitEnvelope: bytes, file: name, resources: resources)
        } catch {
            throw .package(path, error)
        }
    }
}

/// Why a package file could not be used: the file itself, or what is in it.
public enum PackageFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be read.
    case input(InputFileError)
    /// The file is read but is not a usable package.
    case package(String, FirmwarePackageError)

    /// `PATH: reason`.
    public var description: String {
        switch self {
        case .input(let error): return error.description
        case .package(let path, let error): return "\(path): \(error)"
        }
    }
}
