import SMP
import CBOR
import Crypto

/// Group 8, file system (smp-reference §3.5) over the device's in-memory file tree.
struct FSGroup: ManagementGroup {
    let id: UInt16 = 8
    let name = "fs mgmt"
    let handlerCount = 5

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        if let open = device.openFile, device.time.now - open.lastUsed > OpenFile.idleCloseTime {
            device.openFile = nil
        }
        switch (request.header.command, request.isRead) {
        case (0, true): return try download(request, device)
        case (0, false): return try upload(request, device)
        case (1, true): return try status(request, device)
        case (2, true): return try checksum(request, device)
        case (3, true): return supportedChecksums()
        case (4, false):
            device.openFile = nil
            return .empty
        default: return nil
        }
    }

    /// The v1 translation of `fs_mgmt_translate_error_code()`.
    func translateForV1(_ code: DeviceErrorCode) -> DeviceErrorCode {
        switch code {
        case FSError.fileInvalidName, FSError.checksumHashNotFound: return MgmtError.invalid
        case FSError.fileNotFound, FSError.mountPointNotFound: return MgmtError.noEntry
        default: return MgmtError.unknown
        }
    }

    /// The `name` field: required, non-empty and within the path limit (else `EINVAL`).
    private func validatedPath(_ fields: RequestFields, _ device: DeviceCore) throws(StatusError) -> String {
        guard let name = try fields.text("name"), !name.isEmpty,
            name.utf8.count <= device.configuration.maximumPathLength
        else { throw StatusError(MgmtError.invalid) }
        return name
    }

    /// `fs_mgmt_filelen()`: the size of a regular file, or the group error.
    private func fileLength(_ path: String, _ device: DeviceCore) -> Result<Int, FSFailure> {
        guard FileTree.isValidName(path) else { return .failure(FSFailure(FSError.fileInvalidName)) }
        guard device.files.isMounted(path) else { return .failure(FSFailure(FSError.fileNotFound)) }
        switch device.files.entry(at: path) {
        case .file(let size): return .success(size)
        case .directory: return .failure(FSFailure(FSError.fileIsDirectory))
        case .none: return .failure(FSFailure(FSError.fileNotFound))
        }
    }

    private func download(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        guard let off64 = try fields.unsigned("off") else { throw StatusError(MgmtError.invalid) }
        let path = try validatedPath(fields, device)
        let off = Int(clamping: off64)
        if let open = device.openFile, open.transport != request.transport || open.mode != .download || open.path != path {
            device.openFile = nil
        }
        if device.openFile == nil {
            switch fileLength(path, device) {
            case .failure(let failure): return .error(id, failure.code)
            case .success(let length):
                device.openFile = OpenFile(mode: .download, path: path, offset: 0, length: length, transport: request.transport, lastUsed: device.time.now)
            }
        }
        var open = device.openFile!
        let contents = device.files.contents(of: path) ?? []
        let chunkSize = max(1, device.configuration.bufferSize - RequestHeader.size - 40)
        let start = min(off, contents.count)
        let chunk = Array(contents[start..<min(contents.count, start + chunkSize)])
        open.offset = off + chunk.count
        open.lastUsed = device.time.now
        var entries: ResponseEntries = [(key: "off", value: .int(off)), (key: "data", value: .bytes(chunk))]
        if off == 0 { entries.append((key: "len", value: .int(open.length))) }
        device.openFile = open.isFinished ? nil : open
        return .success(entries)
    }

    private func upload(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        let off64 = try fields.unsigned("off")
        let path = try validatedPath(fields, device)
        let data = try fields.bytes("data") ?? []
        let len = try fields.unsigned("len")
        guard let off64 else { throw StatusError(MgmtError.invalid) }
        if off64 == 0 && len == nil { throw StatusError(MgmtError.invalid) }
        let off = Int(clamping: off64)
        if let open = device.openFile, open.transport != request.transport || open.mode != .upload || open.path != path {
            device.openFile = nil
        }
        if device.openFile == nil {
            // fs_open(CREATE | WRITE)
            guard FileTree.isValidName(path) else { return .error(id, FSError.fileInvalidName) }
            guard device.files.isMounted(path) else { return .error(id, FSError.mountPointNotFound) }
            switch device.files.entry(at: path) {
            case .directory: return .error(id, FSError.unknown)
            case .none:
                // No room for another file: littlefs's fs_open fails with -ENOSPC, which
                // fs_mgmt answers as FS_MGMT_ERR_UNKNOWN (only EINVAL, ENOENT and EROFS have codes).
                guard device.files.create(path) else {
                    device.record(.warn, .fs, "no room for file \(path)")
                    return .error(id, FSError.unknown)
                }
            case .file: break
            }
            device.openFile = OpenFile(mode: .upload, path: path, offset: 0, length: 0, transport: request.transport, lastUsed: device.time.now)
        }
        var open = device.openFile!
        var existing = 0
        if off == 0 {
            open.length = Int(clamping: len ?? 0)
            existing = device.files.contents(of: path)?.count ?? 0
        } else if open.offset == 0 {
            open.offset = device.files.contents(of: path)?.count ?? 0
        }
        if off > 0 && off != open.offset {
            device.openFile = nil
            return .groupError(group: id, code: FSError.fileOffsetNotValid, extra: [(key: "len", value: .int(open.offset))])
        }
        if !data.isEmpty {
            if off == 0 && existing != 0 { _ = device.files.create(path) }
            // No space left: fs_write fails with -ENOSPC, answered FS_MGMT_ERR_FILE_WRITE_FAILED.
            guard device.files.append(data, to: path) else {
                device.openFile = nil
                return .error(id, FSError.fileWriteFailed)
            }
            device.noteFlashWrite(data.count)
            open.offset += data.count
        }
        open.lastUsed = device.time.now
        device.openFile = open.isFinished ? nil : open
        if open.isFinished { device.record(.info, .fs, "file \(path) written (\(open.offset) bytes)") }
        return .success([(key: "off", value: .int(open.offset))])
    }

    private func status(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let path = try validatedPath(request.fields(), device)
        switch fileLength(path, device) {
        case .failure(let failure): return .error(id, failure.code)
        case .success(let length): return .success([(key: "len", value: .int(length))])
        }
    }

    private func checksum(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        let type = try fields.text("type") ?? ""
        let path = try validatedPath(fields, device)
        let off = try fields.unsigned("off") ?? 0
        let len = try fields.unsigned("len") ?? UInt64.max
        guard type.utf8.count <= 8, len != 0 else { throw StatusError(MgmtError.invalid) }
        let algorithm = type.isEmpty ? "crc32" : type
        guard algorithm == "crc32" || algorithm == "sha256" else { return .error(id, FSError.checksumHashNotFound) }
        let size: Int
        switch fileLength(path, device) {
        case .failure(let failure): return .error(id, failure.code)
        case .success(let length): size = length
        }
        guard UInt64(size) > off else {
            return .error(id, size == 0 ? FSError.fileEmpty : FSError.fileOffsetLargerThanFile)
        }
        let contents = device.files.contents(of: path) ?? []
        let start = Int(off)
        let end = len >= UInt64(size - start) ? size : start + Int(len)
        let slice = contents[start..<end]
        let output: CBORValue =
            algorithm == "crc32"
            ? .unsigned(UInt64(CRC32.checksum(slice))) : .bytes(Array(SHA256.hash(data: Array(slice))))
        var entries: ResponseEntries = [(key: "type", value: .text(algorithm))]
        if off != 0 { entries.append((key: "off", value: .unsigned(off))) }
        entries.append((key: "len", value: .int(slice.count)))
        entries.append((key: "output", value: output))
        return .success(entries)
    }

    private func supportedChecksums() -> HandlerResult {
        func type(_ format: Int, _ size: Int) -> CBORValue {
            DeviceCore.map([(key: "format", value: .int(format)), (key: "size", value: .int(size))])
        }
        let types = DeviceCore.map([(key: "crc32", value: type(0, 4)), (key: "sha256", value: type(1, 32))])
        return .success([(key: "types", value: types)])
    }
}

/// An FS group error code as a `Result` failure.
private struct FSFailure: Error {
    let code: DeviceErrorCode
    init(_ code: DeviceErrorCode) { self.code = code }
}
