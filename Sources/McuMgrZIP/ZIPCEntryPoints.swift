import Glibc

// The C entry points of libMcuMgrZIP.so, for a program that opens the library at run time
// (dlopen) so that ZIPFoundation, Foundation and ICU load only when a zip is read: the `mcumgr`
// CLI. A handle is a retained ZIPEntryReader. A call that fails returns a negative ZIPErrorCode
// and writes the message, NUL-terminated, into `message` (at most `capacity` bytes).

/// The negative codes the C entry points return, one per `ZIPReadError` case.
public enum ZIPErrorCode: Int {
    /// `ZIPReadError.notAZip`.
    case notAZip = -1
    /// `ZIPReadError.tooManyEntries`.
    case tooManyEntries = -2
    /// `ZIPReadError.missingEntry`.
    case missingEntry = -3
    /// `ZIPReadError.tooLarge`.
    case tooLarge = -4
    /// `ZIPReadError.corrupt`.
    case corrupt = -5
    /// A bad argument (index out of range, no handle).
    case invalidArgument = -6

    /// The code of `error`.
    public init(_ error: ZIPReadError) {
        switch error {
        case .notAZip: self = .notAZip
        case .tooManyEntries: self = .tooManyEntries
        case .missingEntry: self = .missingEntry
        case .tooLarge: self = .tooLarge
        case .corrupt: self = .corrupt
        }
    }
}

/// Copies `text` into `buffer` as a NUL-terminated string cut to `capacity` bytes.
private func copy(_ text: String, into buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
    guard let buffer, capacity > 0 else { return }
    let bytes = Array(text.utf8.prefix(capacity - 1))
    for (offset, byte) in bytes.enumerated() { buffer[offset] = CChar(bitPattern: byte) }
    buffer[bytes.count] = 0
}

private func reader(_ handle: UnsafeMutableRawPointer?) -> ZIPEntryReader? {
    handle.map { Unmanaged<ZIPEntryReader>.fromOpaque($0).takeUnretainedValue() }
}

/// Opens the zip at `path`: a handle, or nil with the reason in `message`.
@_cdecl("mcumgr_zip_open")
public func mcumgrZIPOpen(
    _ path: UnsafePointer<CChar>, _ code: UnsafeMutablePointer<Int>?, _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> UnsafeMutableRawPointer? {
    do {
        let opened = try ZIPEntryReader(path: String(cString: path))
        return Unmanaged.passRetained(opened).toOpaque()
    } catch {
        code?.pointee = ZIPErrorCode(error).rawValue
        copy(error.description, into: message, capacity: capacity)
        return nil
    }
}

/// The number of files in the archive.
@_cdecl("mcumgr_zip_count")
public func mcumgrZIPCount(_ handle: UnsafeMutableRawPointer?) -> Int {
    reader(handle)?.entries.count ?? ZIPErrorCode.invalidArgument.rawValue
}

/// The name of file `index` into `name` (NUL-terminated, cut to `capacity`) and its declared size;
/// returns the name's full length in bytes, or a negative code.
@_cdecl("mcumgr_zip_entry")
public func mcumgrZIPEntry(
    _ handle: UnsafeMutableRawPointer?, _ index: Int, _ name: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ declaredSize: UnsafeMutablePointer<UInt64>?
) -> Int {
    guard let entries = reader(handle)?.entries, entries.indices.contains(index) else { return ZIPErrorCode.invalidArgument.rawValue }
    let entry = entries[index]
    copy(entry.name, into: name, capacity: capacity)
    declaredSize?.pointee = entry.declaredSize
    return entry.name.utf8.count
}

/// Inflates file `index`, at most `limit` bytes, into a buffer allocated with malloc (`*bytes`,
/// freed by the caller with `mcumgr_zip_free`); returns its length or a negative code.
@_cdecl("mcumgr_zip_read")
public func mcumgrZIPRead(
    _ handle: UnsafeMutableRawPointer?, _ index: Int, _ limit: Int, _ bytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ message: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int {
    guard let opened = reader(handle), opened.entries.indices.contains(index), let bytes else {
        return ZIPErrorCode.invalidArgument.rawValue
    }
    do {
        let contents = try opened.contents(of: opened.entries[index].name, limit: limit)
        guard let buffer = malloc(max(1, contents.count)) else { return ZIPErrorCode.invalidArgument.rawValue }
        contents.withUnsafeBytes { source in
            if let base = source.baseAddress { buffer.copyMemory(from: base, byteCount: source.count) }
        }
        bytes.pointee = buffer
        return contents.count
    } catch {
        copy(error.description, into: message, capacity: capacity)
        return ZIPErrorCode(error).rawValue
    }
}

/// Frees a buffer `mcumgr_zip_read` returned.
@_cdecl("mcumgr_zip_free")
public func mcumgrZIPFree(_ buffer: UnsafeMutableRawPointer?) {
    free(buffer)
}

/// Closes a handle `mcumgr_zip_open` returned.
@_cdecl("mcumgr_zip_close")
public func mcumgrZIPClose(_ handle: UnsafeMutableRawPointer?) {
    guard let handle else { return }
    Unmanaged<ZIPEntryReader>.fromOpaque(handle).release()
}
