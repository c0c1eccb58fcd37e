import CBOR
import Foundation
import McuMgr
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// A download never trusts the device's length: it is bounded, streamed to a temporary file, and
/// leaves nothing behind when it fails (reliability issue, defect 2).
@Suite("File download bounds", .virtualTime)
struct FileDownloadBoundsTests {
    /// A device that keeps sending `data` for a file whose length it states as `length` (or not at all).
    static func endless(length: Int?) -> @Sendable (SMPHeader, CBORValue) -> CBORValue {
        { _, request in
            let off = request["off"]?.intValue ?? 0
            var fields: [(String, CBORValue)] = [("off", .int(off)), ("data", .bytes(Array(repeating: 0x55, count: 256)))]
            if off == 0, let length { fields.append(("len", .int(length))) }
            return .fields(fields)
        }
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fs-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("data with no len: refused at the first answer, naming the field")
    func noLength() async throws {
        try await ScriptedDevice.with(script: Self.endless(length: nil)) { client async throws in
            let message = await invalidResponse { _ = try await FileSystemManager(client: client).download(name: "/f") }
            #expect(message?.contains("\"len\"") == true)
        }
    }

    @Test("a len of 2^62 (or anything past the limit) is refused before any data is kept")
    func implausibleLength() async throws {
        for (length, limit) in [(1 << 62, FileSystemManager.defaultMaximumDownloadLength), (10_000, 4096)] {
            try await ScriptedDevice.with(script: Self.endless(length: length)) { client async throws in
                do throws(FileDownloadError) {
                    _ = try await FileSystemManager(client: client).download(name: "/f", maximumLength: limit)
                    Issue.record("a \(length)-byte claim was accepted")
                } catch {
                    guard case .tooLarge(let name, let claimed, let bound) = error else {
                        Issue.record("expected tooLarge, got \(error)")
                        return
                    }
                    #expect(name == "/f" && claimed == length && bound == limit)
                }
            }
        }
    }

    @Test("an empty {} answer is an invalid response, not an empty file")
    func emptyAnswer() async throws {
        try await ScriptedDevice.with(script: { _, _ in .fields([]) }) { client async throws in
            let message = await invalidResponse { _ = try await FileSystemManager(client: client).download(name: "/f") }
            #expect(message?.contains("off") == true)
        }
    }

    @Test("a download to a file streams into a temporary file and renames it; a failure leaves nothing")
    func streamsAndCleansUp() async throws {
        let folder = try Self.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("out.bin")
        // 1000 bytes in 256-byte chunks: completes.
        try await ScriptedDevice.with(script: { _, request in
            let off = request["off"]?.intValue ?? 0
            var fields: [(String, CBORValue)] = [("off", .int(off)), ("data", .bytes(Array(repeating: UInt8(off / 256), count: min(256, 1000 - off))))]
            if off == 0 { fields.append(("len", .int(1000))) }
            return .fields(fields)
        }) { client async throws in
            let length = try await FileSystemManager(client: client).download(name: "/f", to: destination)
            #expect(length == 1000)
        }
        let written = try [UInt8](Data(contentsOf: destination))
        #expect(written.count == 1000 && written[0] == 0 && written[999] == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.bin"])

        // A device that overruns its length: an error, the earlier file untouched, no partial file.
        try await ScriptedDevice.with(script: Self.endless(length: 300)) { client async throws in
            let message = await invalidResponse { _ = try await FileSystemManager(client: client).download(name: "/f", to: destination) }
            #expect(message?.contains("300-byte file") == true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.bin"])
        #expect(try [UInt8](Data(contentsOf: destination)) == written)
    }

    @Test("an unwritable destination fails before the first request, in one line")
    func unwritableDestination() async throws {
        let transport = LoopbackTransport()
        let device = await ScriptedDevice.started(transport, clock: VirtualRuntime.currentClock) { _, _ in .payload(.map([])) }
        let client = SMPClient(transport: transport, clock: VirtualRuntime.currentClock)
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/out.bin")
        do throws(FileDownloadError) {
            _ = try await FileSystemManager(client: client).download(name: "/f", to: missing)
            Issue.record("a download into a missing folder succeeded")
        } catch {
            guard case .destination(let path, let reason) = error else {
                Issue.record("expected a destination error, got \(error)")
                return
            }
            #expect(path == missing.path)
            #expect(reason.contains("does not exist"))
        }
        #expect(await device.receivedBytes.isEmpty)
        await client.close()
    }
}
