/// The files of a DFU package's archive, listed with their declared sizes and read with a bound.
///
/// A zip reader conforms to it (`FirmwarePackageZIP`'s `ZIPPackageArchive`, or the `mcumgr`
/// CLI's, which opens the zip library at run time); ``InMemoryPackageArchive`` holds files in memory.
public protocol PackageArchive {
    /// The archive's files, in its own order.
    var entries: [PackageArchiveEntry] { get }
    /// The bytes of `entry`; more than `limit` bytes throws ``FirmwarePackageError/tooLarge(_:limit:)``
    /// while inflating, before they are all in memory.
    func contents(of entry: PackageArchiveEntry, limit: Int) throws(FirmwarePackageError) -> [UInt8]
}

/// One file of a package archive.
public struct PackageArchiveEntry: Sendable, Hashable {
    /// The path inside the archive.
    public var name: String
    /// The size the archive declares (a zip's central directory), before anything is inflated.
    public var declaredSize: UInt64
    /// The entry's position in the archive, for the reader.
    public var position: Int

    /// Makes an entry.
    public init(name: String, declaredSize: UInt64, position: Int) {
        self.name = name
        self.declaredSize = declaredSize
        self.position = position
    }
}

/// A package archive held in memory: files by name.
public struct InMemoryPackageArchive: PackageArchive, Sendable {
    /// The files, in order.
    public let files: [(name: String, bytes: [UInt8])]

    /// Makes an archive of `files`, in order.
    public init(files: [(name: String, bytes: [UInt8])]) {
        self.files = files
    }

    /// The files with their sizes.
    public var entries: [PackageArchiveEntry] {
        files.enumerated().map { PackageArchiveEntry(name: $1.name, declaredSize: UInt64($1.bytes.count), position: $0) }
    }

    /// The file's bytes, refused past `limit`.
    public func contents(of entry: PackageArchiveEntry, limit: Int) throws(FirmwarePackageError) -> [UInt8] {
        guard files.indices.contains(entry.position) else { throw .missingFile(entry.name) }
        let bytes = files[entry.position].bytes
        guard bytes.count <= limit else { throw .tooLarge(entry.name, limit: limit) }
        return bytes
    }
}
