import CBOR
import SMP
import SMPSimulator
import SMPTestSupport
import Testing

/// The simulator's memory is bounded like a device's (reliability issue, defect 7): the settings
/// store and the file system hold at most so many entries and bytes, and answer the reference's
/// errors past them. Before the fix, 100 000 settings of distinct names grew the simulator to
/// 236 MB, and empty files were unlimited.
///
/// Requests go straight to the device's SMP server (`SimulatedDevice.handle`), without a link.
@Suite("Simulator memory is bounded like a device's")
struct DeviceLimitsTests {
    /// A device and a sequence number for requests.
    final class Bench: @unchecked Sendable {
        let device: SimulatedDevice
        private var sequence: UInt8 = 0

        init(_ adjust: (inout DeviceConfiguration) -> Void = { _ in }) {
            var configuration = DeviceConfiguration()
            adjust(&configuration)
            device = SimulatedDevice(configuration: configuration)
        }

        /// Sends one request and returns the answer map.
        func request(_ operation: SMPOperation, _ group: SMPGroup, _ command: UInt8, _ fields: KeyValuePairs<String, CBORValue>) async throws -> CBORValue {
            sequence &+= 1
            let payload = CBORWriter().encode(.textMap(fields))
            let header = SMPHeader(version: .v2, operation: operation, length: UInt16(payload.count), group: group.rawValue, sequence: sequence, command: command)
            let answers = await device.handle(header.bytes + payload)
            let answer = try SMPPacket(decoding: try #require(answers.first))
            #expect(answer.header.sequence == sequence)
            return try answer.decodedPayload()
        }

        func writeSetting(_ name: String, _ value: [UInt8]) async throws -> CBORValue {
            try await request(.write, .settings, 0, ["name": .text(name), "val": .bytes(value)])
        }

        func createFile(_ path: String, _ data: [UInt8] = []) async throws -> CBORValue {
            try await request(.write, .fs, 0, ["name": .text(path), "off": .unsigned(0), "len": .int(data.count), "data": .bytes(data)])
        }
    }

    static let noMemory: CBORValue = .textMap(["rc": .unsigned(2)])

    @Test("100 000 settings of distinct names: the store stays within its bounds, and the rest answer ENOMEM")
    func settingsStayBounded() async throws {
        let bench = Bench()
        let limits = DeviceConfiguration()
        var accepted = 0
        var refused = 0
        for index in 0..<100_000 {
            let answer = try await bench.writeSetting("app/key\(index)", [UInt8](repeating: UInt8(index & 0xff), count: 8))
            if answer == .map([]) {
                accepted += 1
            } else {
                #expect(answer == Self.noMemory, "write \(index): \(answer)")
                refused += 1
            }
            if index % 10_000 == 0 {
                let usage = await bench.device.settingsUsage
                #expect(usage.entries <= limits.settingsMaximumEntries && usage.bytes <= limits.settingsMaximumBytes)
            }
        }
        let usage = await bench.device.settingsUsage
        #expect(usage.entries == accepted)
        #expect(accepted == limits.settingsMaximumEntries, "the entry bound is reached before the byte bound here")
        #expect(refused == 100_000 - accepted)
        // Rewriting a kept setting still works; deleting one makes room for a new one.
        #expect(try await bench.writeSetting("app/key0", [1, 2, 3]) == .map([]))
        #expect(try await bench.request(.write, .settings, 1, ["name": .text("app/key1")]) == .map([]))
        #expect(try await bench.writeSetting("app/new", [9]) == .map([]))
        #expect(try await bench.writeSetting("app/newer", [9]) == Self.noMemory)
    }

    @Test("the byte bound: a value that does not fit answers ENOMEM and leaves the old value")
    func settingsByteBound() async throws {
        let bench = Bench { $0.settingsMaximumBytes = 200 }
        #expect(try await bench.writeSetting("app/a", [UInt8](repeating: 1, count: 100)) == .map([]))
        #expect(try await bench.writeSetting("app/b", [UInt8](repeating: 2, count: 100)) == Self.noMemory)
        #expect(try await bench.writeSetting("app/a", [UInt8](repeating: 3, count: 200)) == Self.noMemory)
        #expect(await bench.device.setting(named: "app/a") == [UInt8](repeating: 1, count: 100))
        #expect(await bench.device.setting(named: "app/b") == nil)
    }

    @Test("files past the file bound are refused (FS_MGMT_ERR_UNKNOWN, as littlefs's ENOSPC); the tree stays consistent")
    func fileCountBound() async throws {
        let bench = Bench { $0.fileSystemMaximumFiles = 40_000 }
        for index in 0..<40_000 {
            let answer = try await bench.createFile("/lfs1/d\(index % 100)/f\(index)")
            if answer != .textMap(["off": .unsigned(0)]) {
                Issue.record("file \(index): \(answer)")
                return
            }
        }
        #expect(await bench.device.fileSystemUsage.files == 40_000)
        let refused = try await bench.createFile("/lfs1/one-too-many")
        #expect(refused == .textMap(["err": .textMap(["group": .unsigned(8), "rc": .unsigned(1)])]))
        #expect(await bench.device.fileSystemUsage.files == 40_000)
        // Existing files can still be written; a directory is still a directory; status still finds files.
        #expect(try await bench.createFile("/lfs1/d7/f7", [1, 2, 3]) == .textMap(["off": .unsigned(3)]))
        #expect(try await bench.request(.read, .fs, 1, ["name": .text("/lfs1/d7/f7")]) == .textMap(["len": .unsigned(3)]))
        #expect(try await bench.request(.read, .fs, 1, ["name": .text("/lfs1/d7")]) == .textMap(["err": .textMap(["group": .unsigned(8), "rc": .unsigned(4)])]))
    }

    @Test("bytes past the capacity answer FILE_WRITE_FAILED; the file system's bytes stay bounded")
    func fileByteBound() async throws {
        let bench = Bench { $0.fileSystemCapacity = 4096 }
        #expect(try await bench.createFile("/lfs1/a", [UInt8](repeating: 1, count: 3000)) == .textMap(["off": .unsigned(3000)]))
        let refused = try await bench.createFile("/lfs1/b", [UInt8](repeating: 2, count: 2000))
        #expect(refused == .textMap(["err": .textMap(["group": .unsigned(8), "rc": .unsigned(10)])]))
        #expect(await bench.device.fileSystemUsage.bytes == 3000)
        // Truncating a file gives its bytes back.
        #expect(try await bench.createFile("/lfs1/a", [UInt8](repeating: 3, count: 10)) == .textMap(["off": .unsigned(10)]))
        #expect(try await bench.createFile("/lfs1/b", [UInt8](repeating: 2, count: 2000)) == .textMap(["off": .unsigned(2000)]))
        #expect(await bench.device.fileSystemUsage.bytes == 2010)
    }

    @Test("the shell lists directories from the index: files and subdirectories, sorted; removing the last file removes the directory")
    func directoryIndex() async throws {
        let bench = Bench()
        for path in ["/lfs1/logs/b.txt", "/lfs1/logs/a.txt", "/lfs1/logs/old/c.txt", "/lfs1/top.bin"] {
            _ = try await bench.createFile(path, [1])
        }
        func ls(_ path: String) async throws -> String? {
            try await bench.request(.write, .shell, 0, ["argv": .array([.text("fs"), .text("ls"), .text(path)])])["o"]?.textValue
        }
        #expect(try await ls("/lfs1") == "logs/\ntop.bin\n")
        #expect(try await ls("/lfs1/logs") == "a.txt\nb.txt\nold/\n")
        _ = try await bench.request(.write, .shell, 0, ["argv": .array([.text("fs"), .text("rm"), .text("/lfs1/logs/old/c.txt")])])
        #expect(try await ls("/lfs1/logs") == "a.txt\nb.txt\n")
        let gone = try await bench.request(.read, .fs, 1, ["name": .text("/lfs1/logs/old")])
        #expect(gone == .textMap(["err": .textMap(["group": .unsigned(8), "rc": .unsigned(3)])]))
    }
}
