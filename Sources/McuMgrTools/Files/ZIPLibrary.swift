import Glibc
import McuBoot

/// libMcuMgrZIP.so, opened when the first zip is read: the CLI loads ZIPFoundation, Foundation and
/// ICU only for a DFU package, so that every other command starts without them.
///
/// The library is looked for in `$MCUMGR_ZIP_LIBRARY`, then beside the executable (where
/// `swift build` puts it), then in `../lib/mcumgr` from it (where `make install` puts it), then on
/// the dynamic loader's search path.
public final class ZIPLibrary: @unchecked Sendable {
    typealias Open = @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<CChar>?, Int) -> UnsafeMutableRawPointer?
    typealias Count = @convention(c) (UnsafeMutableRawPointer?) -> Int
    typealias EntryInfo = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<CChar>?, Int, UnsafeMutablePointer<UInt64>?) -> Int
    typealias Read = @convention(c) (
        UnsafeMutableRawPointer?, Int, Int, UnsafeMutablePointer<UnsafeMutableRawPointer?>?, UnsafeMutablePointer<CChar>?, Int
    ) -> Int
    typealias Release = @convention(c) (UnsafeMutableRawPointer?) -> Void

    let open: Open
    let count: Count
    let entry: EntryInfo
    let read: Read
    let free: Release
    let close: Release

    /// The file name of the library.
    public static let fileName = "libMcuMgrZIP.so"
    /// The code `mcumgr_zip_read` returns for a file past its bound (ZIPErrorCode.tooLarge).
    static let tooLargeCode = -4

    /// The library, opened once; nil with the reason when it cannot be found or is not the right one.
    public static let shared: Result<ZIPLibrary, FirmwarePackageError> = ZIPLibrary.load()

    private init(handle: UnsafeMutableRawPointer) throws(FirmwarePackageError) {
        func symbol<T>(_ name: String, as type: T.Type) throws(FirmwarePackageError) -> T {
            guard let address = dlsym(handle, name) else { throw .archive("\(ZIPLibrary.fileName) has no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        open = try symbol("mcumgr_zip_open", as: Open.self)
        count = try symbol("mcumgr_zip_count", as: Count.self)
        entry = try symbol("mcumgr_zip_entry", as: EntryInfo.self)
        read = try symbol("mcumgr_zip_read", as: Read.self)
        free = try symbol("mcumgr_zip_free", as: Release.self)
        close = try symbol("mcumgr_zip_close", as: Release.self)
    }

    private static func load() -> Result<ZIPLibrary, FirmwarePackageError> {
        var candidates: [String] = []
        if let override = getenv("MCUMGR_ZIP_LIBRARY") { candidates.append(String(cString: override)) }
        if let directory = executableDirectory() {
            candidates.append(directory + "/" + fileName)
            // Where `make install` puts it: PREFIX/lib/mcumgr beside PREFIX/bin.
            candidates.append(directory + "/../lib/mcumgr/" + fileName)
        }
        candidates.append(fileName)
        var reasons: [String] = []
        for path in candidates {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? path)
                continue
            }
            do {
                return .success(try ZIPLibrary(handle: handle))
            } catch {
                return .failure(error)
            }
        }
        return .failure(.archive("reading a zip needs \(fileName) beside mcumgr, in ../lib/mcumgr from it, or on the library path (\(reasons.last ?? "not found"))"))
    }

    /// The directory of the running executable (`/proc/self/exe`).
    private static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}

/// A zip read through ``ZIPLibrary``: a package archive for `FirmwarePackage(archive:limits:)`.
public final class DynamicZIPArchive: PackageArchive {
    private let library: ZIPLibrary
    private let handle: UnsafeMutableRawPointer
    /// The zip's files with their declared sizes.
    public let entries: [PackageArchiveEntry]

    /// Opens the zip at `path`.
    public init(path: String) throws(FirmwarePackageError) {
        library = try ZIPLibrary.shared.get()
        var message = [CChar](repeating: 0, count: 512)
        var code = 0
        guard let handle = library.open(path, &code, &message, message.count) else {
            throw .archive(cText(message))
        }
        self.handle = handle
        let count = library.count(handle)
        var entries: [PackageArchiveEntry] = []
        var name = [CChar](repeating: 0, count: 4096)
        for position in 0..<max(0, count) {
            var size: UInt64 = 0
            guard library.entry(handle, position, &name, name.count, &size) >= 0 else { continue }
            entries.append(PackageArchiveEntry(name: cText(name), declaredSize: size, position: position))
        }
        self.entries = entries
    }

    deinit {
        library.close(handle)
    }

    /// The file inflated, stopping at `limit` bytes.
    public func contents(of entry: PackageArchiveEntry, limit: Int) throws(FirmwarePackageError) -> [UInt8] {
        var message = [CChar](repeating: 0, count: 512)
        var buffer: UnsafeMutableRawPointer?
        let length = library.read(handle, entry.position, limit, &buffer, &message, message.count)
        guard length >= 0, let buffer else {
            if length == ZIPLibrary.tooLargeCode { throw .tooLarge(entry.name, limit: limit) }
            throw .archive(cText(message))
        }
        defer { library.free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}

/// The NUL-terminated text in `buffer`.
private func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
