import CBOR
import Crypto
import SMP

// The file-system group on a file the user names (--fs-path): the hash and checksum types the
// device offers against what it computes, and a write/read round trip that puts the file back.

extension ConformanceCheck {
    /// The file-system checks.
    static let fileSystem: [ConformanceCheck] = [
        ConformanceCheck(
            "fs.hash-types", .fs,
            expects: "each hash/checksum type offered (command 3) is computed with the size offered and the right value; none given means one offered",
            rationale: """
                Supported hash/checksum types answer {type: {format, size}} and hash/checksum (command 2) computes one \
                (fs_mgmt.c). mcumgr-toolkit has both commands (fs::SupportedFileChecksumTypes, fs::FileChecksum, \
                mcumgr-toolkit/src/commands/mod.rs), our `fs hash` picks its type from the list; crc32 is IEEE 802.3, \
                sha256 the file's SHA-256. Reads only; needs --fs-path naming an existing file.
                """, body: hashTypes),
        ConformanceCheck(
            "fs.round-trip", .fs, access: .writes,
            expects: "a file written in chunks reads back the same, status gives its length, and the original is written back",
            rationale: """
                File upload follows the device's off as image upload does (smpclient's upload_file), download follows \
                off and len (smpclient's download_file, mcumgr-toolkit's fs_file_download, which refuses an unexpected \
                off). The FS group cannot delete, so the check overwrites an existing file (--fs-path) and writes its \
                contents back.
                """, body: roundTrip),
    ]

    /// The file named by --fs-path, or why the check is skipped.
    private static func namedFile(_ context: ConformanceContext) async throws(ConformanceAbort) -> Result<(FileTransfer, [UInt8]), CheckStop> {
        guard let path = context.options.filePath else {
            return .failure(.skip("needs --fs-path PATH: an existing file the run may overwrite and restore (SMP cannot delete a file)"))
        }
        let file = FileTransfer(path: path, context: context)
        switch try await file.status() {
        case .success(let length) where length > FileTransfer.sizeLimit:
            return .failure(.skip("\(path) has \(length) bytes, more than this run keeps to restore (\(FileTransfer.sizeLimit))"))
        case .success: break
        case .failure(let problem) where problem.answer?.rc == SMPReturnCode.notSupported.rawValue:
            return .failure(.skip("the file-system group is not offered (rc 8)"))
        case .failure(let problem) where problem.answer != nil:
            return .failure(.skip("\(problem.text): give an existing file"))
        case .failure(let problem):
            return .failure(.fail(problem.text))
        }
        switch try await file.download() {
        case .success(let contents): return .success((file, contents))
        case .failure(let problem): return .failure(.fail(problem.text))
        }
    }

    private static func hashTypes(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let file: FileTransfer
        let contents: [UInt8]
        switch try await namedFile(context) {
        case .success(let value): (file, contents) = value
        case .failure(let why): return why.outcome
        }
        guard !contents.isEmpty else { return .skipped("\(file.path) is empty: nothing to hash") }
        let listed = try await context.ask(ProbeRequest(.read, group: .fs, command: 3))
        var offered: [(name: String, size: Int?)] = [("crc32", 4), ("sha256", 32)]
        if let listed, listed.isSuccess, let types = listed.value?["types"]?.mapEntries {
            offered = types.compactMap { entry in entry.key.textValue.map { ($0, entry.value["size"]?.intValue) } }
        }
        var seen: [String] = []
        for (name, size) in offered {
            let request = ProbeRequest(.read, group: .fs, command: 2, value: .textMap(["name": .text(file.path), "type": .text(name)]))
            guard let answer = try await context.ask(request) else { return .fail("no answer to hashing \(file.path) with \(name)") }
            guard answer.isSuccess, let output = answer.value?["output"] else { return .fail("\(name) of \(file.path) was answered \(answer.summary)") }
            guard answer.value?["type"]?.textValue == name else { return .fail("\(name) was answered as type \(answer.value?["type"].map { "\($0)" } ?? "none")") }
            let bytes = output.bytesValue ?? output.uint64Value.map { value in (0..<(size ?? 4)).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
            guard let bytes else { return .fail("\(name) output is \(output), neither bytes nor an unsigned integer") }
            if let size, output.bytesValue != nil, bytes.count != size { return .fail("\(name) output has \(bytes.count) bytes; \(size) were offered") }
            if let expected = expectedDigest(name, of: contents, size: size ?? 4), expected != bytes {
                return .fail("\(name) of \(file.path) was answered \(output), not the \(name) of its \(contents.count) bytes")
            }
            seen.append(name)
        }
        let unnamed = ProbeRequest(.read, group: .fs, command: 2, value: .textMap(["name": .text(file.path)]))
        if let answer = try await context.ask(unnamed), answer.isSuccess, let type = answer.value?["type"]?.textValue, !offered.contains(where: { $0.name == type }) {
            return .fail("hashing without a type used \(type), which is not among the types offered")
        }
        return .pass("\(seen.joined(separator: ", ")) of \(contents.count) bytes computed as offered")
    }

    /// What `name` gives for `contents` (big-endian for checksums), when this check knows it.
    private static func expectedDigest(_ name: String, of contents: [UInt8], size: Int) -> [UInt8]? {
        switch name {
        case "sha256": return Array(SHA256.hash(data: contents))
        case "crc32":
            let crc = IEEECRC32.of(contents)
            return (0..<size).reversed().map { UInt8(truncatingIfNeeded: crc >> (8 * UInt32($0))) }
        default: return nil
        }
    }

    private static func roundTrip(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let file: FileTransfer
        let original: [UInt8]
        switch try await namedFile(context) {
        case .success(let value): (file, original) = value
        case .failure(let why): return why.outcome
        }
        let chunk = try await file.chunkSize()
        var random = SeededRandom(seed: 0xf11e)
        let probe = random.bytes(chunk * 2 + chunk / 2)
        var outcome = try await writeAndRead(file, probe, chunk: chunk, what: "\(probe.count) bytes of probe data")
        if outcome == nil, let failure = try await writeAndRead(file, original, chunk: chunk, what: "the original \(original.count) bytes") {
            outcome = "the probe data read back, but restoring failed: \(failure)"
        }
        if let outcome { return .fail(outcome) }
        return .pass("wrote and read back \(probe.count) bytes in \(chunk)-byte chunks, then the original \(original.count) bytes")
    }

    /// Writes `contents`, checks status and a download; what went wrong, or `nil`.
    private static func writeAndRead(_ file: FileTransfer, _ contents: [UInt8], chunk: Int, what: String) async throws(ConformanceAbort) -> String? {
        if let problem = try await file.upload(contents, chunk: chunk) { return problem.text }
        switch try await file.status() {
        case .success(let length) where length == contents.count: break
        case .success(let length): return "after writing \(what), status gives \(length) bytes"
        case .failure(let problem): return problem.text
        }
        switch try await file.download() {
        case .success(let back) where back == contents: return nil
        case .success(let back): return "after writing \(what), \(back.count) bytes that differ read back"
        case .failure(let problem): return problem.text
        }
    }
}
