import SMPTestTraits
import Crypto
import McuMgr
import SMP
import Synchronization
import Testing

@Suite("FileSystemManager against the simulator", .virtualTime)
struct FileSystemManagerTests {
    /// Uploads `bytes` to `name` with the chunk primitive, continuing from the device's offset.
    static func upload(_ bytes: [UInt8], to name: String, with fs: FileSystemManager, chunk: Int = 1500) async throws {
        var offset = try await fs.uploadChunk(name: name, offset: 0, data: Array(bytes.prefix(chunk)), length: bytes.count)
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            let next = try await fs.uploadChunk(name: name, offset: offset, data: Array(bytes[offset..<end]))
            #expect(next == end)
            guard next > offset else { throw SMPError.invalidResponse("file upload does not progress") }
            offset = next
        }
    }

    static func pattern(_ count: Int) -> [UInt8] {
        var state: UInt32 = 0x1234_5678
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test func upload100KiBDownloadAndHash() async throws {
        try await ManagerHarness.with { h async throws in
            let name = "/lfs1/firmware.bin"
            let bytes = Self.pattern(100 * 1024)
            // The whole-file upload: the shared upload engine, pipelined to the device's buf_count − 1.
            try await h.fs.upload(name: name, data: bytes)
            #expect(await h.device.file(at: name) == bytes)
            #expect(await h.device.maximumRequestsInFlight > 1)
            #expect(try await h.fs.status(name: name) == bytes.count)

            let reports = Mutex<[(Int, Int)]>([])
            let downloaded = try await h.fs.download(name: name) { done, total in
                reports.withLock { $0.append((done, total)) }
            }
            #expect(downloaded == bytes)
            let progress = reports.withLock { $0 }
            #expect(progress.count > 1)
            #expect(progress.allSatisfy { $0.1 == bytes.count })
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.0 < $1.0 })
            #expect(progress.last?.0 == bytes.count)

            let sha = try await h.fs.hash(name: name, type: "sha256")
            #expect(sha.type == "sha256")
            #expect(sha.length == bytes.count)
            #expect(sha.output == .digest(Array(SHA256.hash(data: bytes))))
        }
    }

    @Test func defaultHashIsCRC32AndRangesWork() async throws {
        try await ManagerHarness.with { h async throws in
            let name = "/lfs1/hello.txt"
            let bytes = Array("The quick brown fox jumps over the lazy dog".utf8)
            try await Self.upload(bytes, to: name, with: h.fs)

            let crc = try await h.fs.hash(name: name)
            #expect(crc.type == "crc32")
            #expect(crc.output == .checksum(0x414F_A339))
            #expect(crc.output.bytes() == [0x41, 0x4f, 0xa3, 0x39])

            let part = try await h.fs.hash(name: name, type: "sha256", offset: 4, length: 5)
            #expect(part.offset == 4)
            #expect(part.length == 5)
            #expect(part.output == .digest(Array(SHA256.hash(data: Array("quick".utf8)))))
        }
    }

    @Test func supportedHashesListCRC32AndSHA256() async throws {
        try await ManagerHarness.with { h async throws in
            let types = try await h.fs.supportedHashes()
            #expect(types["crc32"] == HashTypeInfo(format: 0, size: 4))
            #expect(types["sha256"] == HashTypeInfo(format: 1, size: 32))
            #expect(types["sha256"]?.isByteString == true)
            #expect(types["crc32"]?.isByteString == false)
        }
    }

    @Test func emptyFileDownloadsAsNothing() async throws {
        try await ManagerHarness.with { h async throws in
            await h.device.writeFile(at: "/lfs1/empty", contents: [])
            let calls = Mutex(0)
            let bytes = try await h.fs.download(name: "/lfs1/empty") { _, total in
                #expect(total == 0)
                calls.withLock { $0 += 1 }
            }
            #expect(bytes.isEmpty)
            #expect(calls.withLock { $0 } == 1)
            #expect(try await h.fs.status(name: "/lfs1/empty") == 0)
        }
    }

    @Test func closeReleasesAnUploadInProgress() async throws {
        try await ManagerHarness.with { h async throws in
            let name = "/lfs1/partial.bin"
            let bytes = Self.pattern(4000)
            #expect(try await h.fs.uploadChunk(name: name, offset: 0, data: Array(bytes.prefix(1000)), length: bytes.count) == 1000)
            try await h.fs.close()
            // Without an open context, the device continues from the file's size.
            #expect(try await h.fs.uploadChunk(name: name, offset: 1000, data: Array(bytes[1000..<2000])) == 2000)
            #expect(await h.device.file(at: name) == Array(bytes.prefix(2000)))
        }
    }

    @Test func wrongUploadOffsetIsAnFSError() async throws {
        try await ManagerHarness.with { h async throws in
            let name = "/lfs1/x.bin"
            _ = try await h.fs.uploadChunk(name: name, offset: 0, data: [1, 2, 3], length: 10)
            let error = await deviceError { _ = try await h.fs.uploadChunk(name: name, offset: 7, data: [4]) }
            #expect(error == .fs(.fileOffsetNotValid))
            #expect(error?.description.contains("FS_MGMT_ERR_FILE_OFFSET_NOT_VALID") == true)
        }
    }
}
