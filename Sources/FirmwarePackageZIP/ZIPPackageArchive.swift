import McuBoot
import McuMgrZIP

/// A package archive read from a zip file through ZIPFoundation, within the bounds the package asks for.
public struct ZIPPackageArchive: PackageArchive {
    private let reader: ZIPEntryReader

    /// Opens the zip at `path`; a file that is not a zip throws `FirmwarePackageError.archive(_:)`.
    public init(path: String) throws(FirmwarePackageError) {
        do {
            reader = try ZIPEntryReader(path: path)
        } catch {
            throw .archive(error.description)
        }
    }

    /// The zip's files with the sizes its central directory declares.
    public var entries: [PackageArchiveEntry] {
        reader.entries.enumerated().map { PackageArchiveEntry(name: $1.name, declaredSize: $1.declaredSize, position: $0) }
    }

    /// The file inflated, stopping at `limit` bytes.
    public func contents(of entry: PackageArchiveEntry, limit: Int) throws(FirmwarePackageError) -> [UInt8] {
        do {
            return try reader.contents(of: entry.name, limit: limit)
        } catch .tooLarge(let name, let limit) {
            throw .tooLarge(name, limit: limit)
        } catch .missingEntry(let name) {
            throw .missingFile(name)
        } catch {
            throw .archive(error.description)
        }
    }
}

extension FirmwarePackage {
    /// Reads the DFU package in the zip file at `path` (`dfu_application.zip`).
    public init(zipFile path: String, limits: FirmwarePackageLimits = FirmwarePackageLimits()) throws(FirmwarePackageError) {
        try self.init(archive: ZIPPackageArchive(path: path), limits: limits)
    }
}
