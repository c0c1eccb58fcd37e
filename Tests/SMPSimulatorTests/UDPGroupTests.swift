import CBOR
import SMP
import SMPTestSupport
import SMPSimulator
import SMPUDP
import Testing

/// Our own `UDPTransport` and `SMPClient` against the simulator's UDP server, one test per group.
@Suite("Every group over UDP")
struct UDPGroupTests {
    /// A device with a running image, a UDP server on an ephemeral port, and a connected client.
    struct Session: DeviceSession {
        let device: SimulatedDevice
        let server: SimulatorUDPServer
        let client: SMPClient

        static func start(host: String = "127.0.0.1", configuration: DeviceConfiguration = .testing) async throws -> Session {
            let device = SimulatedDevice(configuration: configuration)
            await device.installTestImages()
            let server = try await SimulatorUDPServer.start(device: device, host: host, port: 0)
            let transport = UDPTransport(host: host, port: server.port)
            try await transport.connect()
            // Loopback UDP does not lose datagrams, so nothing is resent: with parallel tests
            // keeping both cores busy, an answer can take longer than a timeout, and a resent
            // fs write the device already took is answered FILE_OFFSET_NOT_VALID (seen 2 in 20
            // full runs with 10 s and one resend). The timeout only bounds a hung test.
            let client = SMPClient(transport: transport, configuration: SMPClient.Configuration(timeout: .seconds(120), retries: 0))
            return Session(device: device, server: server, client: client)
        }

        func stop() async {
            await client.close()
            await server.close()
        }
    }

    @Test("OS: echo (read and write), tasks, memory pools, date-time, params, info, bootloader, reset")
    func os() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            #expect(try await s.request(.write, .os, 0, .textMap(["d": .text("hi")]))["r"]?.textValue == "hi")
            #expect(try await s.request(.read, .os, 0, .textMap(["d": .text("read")]))["r"]?.textValue == "read")
            #expect(try await s.request(.write, .os, 1, .textMap(["echo": .int(0)])).mapEntries?.isEmpty == true)
            let tasks = try await s.request(.read, .os, 2)["tasks"]
            #expect(tasks?["idle"]?["prio"]?.intValue == 15)
            #expect(tasks?.mapEntries?.allSatisfy { $0.value["stksiz"] != nil && $0.value["runtime"] != nil } == true)
            #expect(try await s.request(.read, .os, 3)["heap"]?["blksiz"]?.intValue == 8)
            #expect(try await s.error(.read, .os, 4) == .os(.rtcNotSet))
            try await s.request(.write, .os, 4, .textMap(["datetime": .text("2025-03-04T05:06:07")]))
            let now = try await s.request(.read, .os, 4)["datetime"]?.textValue ?? ""
            // The device's clock runs on from the time set (wall time over a real socket: how far it
            // ran depends on the machine's load, so only its direction and format are checked).
            let clock = now.split(whereSeparator: { $0 == "T" || $0 == ":" }).map(String.init)
            #expect(now.count == 19 && clock.count == 4 && clock[0] == "2025-03-04", "\(now)")
            if clock.count == 4, let h = Int(clock[1]), let m = Int(clock[2]), let sec = Int(clock[3]) {
                #expect(h * 3600 + m * 60 + sec >= 5 * 3600 + 6 * 60 + 7, "\(now)")
            }
            #expect(try await s.error(.write, .os, 4, .textMap(["datetime": .text("yesterday")])) == .status(.invalidArgument, reason: nil))
            let params = try await s.request(.read, .os, 6)
            #expect(params["buf_size"]?.intValue == 2048 && params["buf_count"]?.intValue == 4)
            #expect(try await s.request(.read, .os, 7)["output"]?.textValue == "Zephyr")
            #expect(try await s.request(.read, .os, 7, .textMap(["format": .text("vs")]))["output"]?.textValue == "Zephyr 3.6.0")
            #expect(try await s.request(.read, .os, 7, .textMap(["format": .text("a")]))["output"]?.textValue?.split(separator: " ").count ?? 0 >= 9)
            #expect(try await s.error(.read, .os, 7, .textMap(["format": .text("sx")])) == .os(.invalidFormat))
            let bootloader = try await s.request(.read, .os, 8)
            #expect(bootloader.mapEntries?.count == 1 && bootloader["bootloader"]?.textValue == "MCUboot")
            let mode = try await s.request(.read, .os, 8, .textMap(["query": .text("mode")]))
            #expect(mode.mapEntries?.count == 1 && mode["mode"]?.intValue == 3)
            #expect(try await s.error(.read, .os, 8, .textMap(["query": .text("colour")])) == .os(.queryYieldsNoAnswer))
            let boots = await s.device.bootCount
            #expect(try await s.request(.write, .os, 5, .textMap(["force": .bool(true)])).mapEntries?.isEmpty == true)
            await s.device.waitForBoot(boots + 1)
            await s.device.waitUntilOnline()
            #expect(try await s.request(.write, .os, 0, .textMap(["d": .text("back")]))["r"]?.textValue == "back")
        }
    }

    @Test("image: state, upload, test, reset, confirm, erase, slot info")
    func image() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            let image = MCUbootImageMaker.make(version: ImageVersion(1, 2, 3, build: 4), payloadSize: 30_000, seed: 5)
            let hash = SlotImageHash.of(image)
            let last = try await s.upload(image, chunk: 1200)
            #expect(last["off"]?.intValue == image.count && last["match"]?.boolValue == true)
            let listed = try await s.request(.read, .image, 0)["images"]?.arrayValue ?? []
            #expect(listed.contains { $0["slot"]?.intValue == 1 && $0["version"]?.textValue == "1.2.3.4" && $0["hash"]?.bytesValue == hash })
            let tested = try await s.request(.write, .image, 0, .textMap(["hash": .bytes(hash), "confirm": .bool(false)]))
            #expect(tested["images"]?.arrayValue?.contains { $0["slot"]?.intValue == 1 && $0["pending"]?.boolValue == true } == true)
            try await s.resetAndWait()
            let swapped = try await s.request(.read, .image, 0)["images"]?.arrayValue ?? []
            #expect(swapped.contains { ($0["image"]?.intValue ?? 0) == 0 && $0["slot"]?.intValue == 0 && $0["hash"]?.bytesValue == hash && $0["confirmed"]?.boolValue == false })
            let confirmed = try await s.request(.write, .image, 0, .textMap(["confirm": .bool(true)]))
            #expect(confirmed["images"]?.arrayValue?.contains { $0["hash"]?.bytesValue == hash && $0["confirmed"]?.boolValue == true } == true)
            try await s.request(.write, .image, 5, .textMap(["slot": .int(1)]))
            #expect(await s.device.slotContents(image: 0, slot: 1).isEmpty)
            let info = try await s.request(.read, .image, 6)["images"]?.arrayValue ?? []
            #expect(info.count == 2)
            #expect(info.first?["slots"]?.arrayValue?.map { $0["size"]?.intValue } == [0x10000, 0x10000])
        }
    }

    @Test("stats: list, show; counters move")
    func stats() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            let list = try await s.request(.read, .stats, 1)["stat_list"]?.arrayValue?.compactMap(\.textValue)
            #expect(list == ["smp_svr_stats", "smp", "flash"])
            let before = try await s.request(.read, .stats, 0, .textMap(["name": .text("smp")]))
            #expect(before["name"]?.textValue == "smp")
            for _ in 0..<3 { try await s.request(.write, .os, 0, .textMap(["d": .text("x")])) }
            let after = try await s.request(.read, .stats, 0, .textMap(["name": .text("smp")]))
            #expect((after["fields"]?["rx_packets"]?.intValue ?? 0) >= (before["fields"]?["rx_packets"]?.intValue ?? 0) + 4)
            #expect(try await s.error(.read, .stats, 0, .textMap(["name": .text("nope")])) == .stats(.invalidGroup))
        }
    }

    @Test("settings: write, read with max_size clamp, delete, commit, save, load")
    func settings() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            try await s.request(.write, .settings, 0, .textMap(["name": .text("app/greeting"), "val": .bytes(Array("hello".utf8))]))
            #expect(try await s.request(.read, .settings, 0, .textMap(["name": .text("app/greeting")])).mapEntries?.count == 1)
            let clamped = try await s.request(.read, .settings, 0, .textMap(["name": .text("app/greeting"), "max_size": .int(10_000)]))
            #expect(clamped["val"]?.bytesValue == Array("hello".utf8) && clamped["max_size"]?.intValue == 64)
            #expect(try await s.request(.read, .settings, 0, .textMap(["name": .text("app/greeting"), "max_size": .int(2)]))["val"]?.bytesValue == Array("he".utf8))
            try await s.request(.write, .settings, 2)
            try await s.request(.write, .settings, 3)
            #expect(await s.device.persistedSetting(named: "app/greeting") == Array("hello".utf8))
            try await s.request(.read, .settings, 3)
            try await s.request(.write, .settings, 1, .textMap(["name": .text("app/greeting")]))
            #expect(try await s.error(.read, .settings, 0, .textMap(["name": .text("app/greeting")])) == .settings(.keyNotFound))
            #expect(try await s.error(.read, .settings, 0, .textMap(["name": .text(String(repeating: "k", count: 64))])) == .settings(.keyTooLong))
            #expect(try await s.error(.read, .settings, 0, .textMap(["name": .text("")])) == .status(.invalidArgument, reason: nil))
        }
    }

    @Test("log: show with next_index and index filter, modules, levels, logs, clear")
    func log() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            try await s.request(.write, .settings, 3)
            let show = try await s.request(.read, .log, 0)
            let entries = show["logs"]?.arrayValue?.first?["entries"]?.arrayValue ?? []
            #expect(!entries.isEmpty)
            let messages = entries.compactMap { $0["msg"]?.bytesValue.map { String(decoding: $0, as: UTF8.self) } }
            #expect(messages.contains("boot 1") && messages.contains("settings saved"))
            let next = show["next_index"]?.intValue ?? 0
            #expect(next == (entries.last?["index"]?.intValue ?? -1) + 1)
            let later = try await s.request(.read, .log, 0, .textMap(["index": .int(next)]))
            #expect(later["logs"]?.arrayValue?.first?["entries"]?.arrayValue?.isEmpty == true)
            #expect(try await s.request(.read, .log, 3)["module_map"]?["IMG"]?.intValue == 2)
            #expect(try await s.request(.read, .log, 4)["level_map"]?.arrayValue?.first?.textValue == "DEBUG")
            #expect(try await s.request(.read, .log, 5)["log_list"]?.arrayValue == [.text("sim")])
            try await s.request(.write, .log, 1)
            #expect(try await s.request(.read, .log, 0)["logs"]?.arrayValue?.first?["entries"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("fs: upload, download in device-sized chunks, status, hash, checksum, types, close, offset errors")
    func fs() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            let contents = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
            var off = 0
            while off < contents.count {
                let end = min(contents.count, off + 1000)
                var fields: [(key: CBORValue, value: CBORValue)] = [(key: .text("name"), value: .text("/lfs1/data.bin")), (key: .text("off"), value: .int(off)), (key: .text("data"), value: .bytes(Array(contents[off..<end])))]
                if off == 0 { fields.append((key: .text("len"), value: .int(contents.count))) }
                off = try await s.request(.write, .fs, 0, .map(fields))["off"]?.intValue ?? 0
            }
            #expect(await s.device.file(at: "/lfs1/data.bin") == contents)
            var downloaded: [UInt8] = []
            var total = -1
            repeat {
                let r = try await s.request(.read, .fs, 0, .textMap(["name": .text("/lfs1/data.bin"), "off": .int(downloaded.count)]))
                if let len = r["len"]?.intValue { total = len }
                #expect(r["off"]?.intValue == downloaded.count)
                let chunk = r["data"]?.bytesValue ?? []
                #expect(chunk.count <= 2048 - 8)
                if chunk.isEmpty { break }
                downloaded += chunk
            } while downloaded.count < total
            #expect(downloaded == contents)
            #expect(try await s.request(.read, .fs, 1, .textMap(["name": .text("/lfs1/data.bin")]))["len"]?.intValue == 5000)
            let crc = try await s.request(.read, .fs, 2, .textMap(["name": .text("/lfs1/data.bin")]))
            #expect(crc["type"]?.textValue == "crc32" && crc["len"]?.intValue == 5000 && crc["off"] == nil)
            #expect(crc["output"]?.uint64Value == UInt64(ReferenceCRC32.checksum(contents)))
            // SHA-256 of "abc" (FIPS 180-2 test vector), taken from the middle of a file.
            await s.device.writeFile(at: "/lfs1/abc.txt", contents: Array("--abc--".utf8))
            let sha = try await s.request(.read, .fs, 2, .textMap(["name": .text("/lfs1/abc.txt"), "type": .text("sha256"), "off": .int(2), "len": .int(3)]))
            #expect(sha["output"]?.bytesValue == bytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
            #expect(sha["off"]?.intValue == 2 && sha["len"]?.intValue == 3)
            #expect(try await s.error(.read, .fs, 2, .textMap(["name": .text("/lfs1/data.bin"), "type": .text("md5")])) == .fs(.checksumHashNotFound))
            #expect(try await s.error(.read, .fs, 2, .textMap(["name": .text("/lfs1/data.bin"), "off": .int(5000)])) == .fs(.fileOffsetLargerThanFile))
            let types = try await s.request(.read, .fs, 3)["types"]
            #expect(types?["crc32"]?["format"]?.intValue == 0 && types?["sha256"]?["size"]?.intValue == 32)
            try await s.request(.write, .fs, 4)
            #expect(try await s.error(.read, .fs, 1, .textMap(["name": .text("/lfs1/none")])) == .fs(.fileNotFound))
            #expect(try await s.error(.read, .fs, 1, .textMap(["name": .text("/lfs1")])) == .fs(.fileIsDirectory))
            #expect(try await s.error(.write, .fs, 0, .textMap(["name": .text("/sd/x"), "off": .int(0), "len": .int(1), "data": .bytes([1])])) == .fs(FSGroupError(rawValue: 14)))
            // A wrong upload offset: FILE_OFFSET_NOT_VALID plus the expected offset in `len`.
            try await s.request(.write, .fs, 0, .textMap(["name": .text("/lfs1/b"), "off": .int(0), "len": .int(100), "data": .bytes([1, 2, 3])]))
            let wrong = try await s.client.transceive(.write, group: .fs, command: 0, payload: CBORWriter().encode(.textMap(["name": .text("/lfs1/b"), "off": .int(50), "data": .bytes([4])])), retryPolicy: .resend)
            let body = try wrong.decodedPayload()
            #expect(body["err"]?["group"]?.intValue == 8 && body["err"]?["rc"]?.intValue == 11 && body["len"]?.intValue == 3)
        }
    }

    @Test("shell: echo, uptime, unknown command as success with ret < 0, empty command")
    func shell() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            let echo = try await s.request(.write, .shell, 0, .textMap(["argv": .array([.text("echo"), .text("hello"), .text("world")])]))
            #expect(echo["o"]?.textValue == "hello world\n" && echo["ret"]?.intValue == 0)
            #expect(try await s.request(.write, .shell, 0, .textMap(["argv": .array([.text("uptime")])]))["o"]?.textValue?.hasPrefix("Uptime: ") == true)
            let unknown = try await s.request(.write, .shell, 0, .textMap(["argv": .array([.text("frobnicate")])]))
            #expect((unknown["ret"]?.intValue ?? 0) < 0 && unknown["o"]?.textValue?.contains("command not found") == true)
            #expect(try await s.error(.write, .shell, 0, .textMap(["argv": .array([])])) == .shell(.emptyCommand))
        }
    }

    @Test("enumeration: count, list, single with end, details")
    func enumeration() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            let count = try await s.request(.read, .enumeration, 0)["count"]?.intValue ?? 0
            let list = try await s.request(.read, .enumeration, 1)["groups"]?.arrayValue?.compactMap(\.intValue) ?? []
            #expect(count == list.count && Set(list).isSuperset(of: [0, 1, 2, 3, 8, 9, 10, 63]))
            let first = try await s.request(.read, .enumeration, 2)
            #expect(first["group"]?.intValue == list.first && first["end"] == nil)
            let last = try await s.request(.read, .enumeration, 2, .textMap(["index": .int(count - 1)]))
            #expect(last["group"]?.intValue == list.last && last["end"]?.boolValue == true)
            #expect(try await s.error(.read, .enumeration, 2, .textMap(["index": .int(count)])) == .enumeration(.indexTooLarge))
            let details = try await s.request(.read, .enumeration, 3, .textMap(["groups": .array([.int(1), .int(8)])]))["groups"]?.arrayValue ?? []
            #expect(details.map { $0["name"]?.textValue } == ["img mgmt", "fs mgmt"])
        }
    }

    @Test("zephyr basic: erase storage clears stored settings and files")
    func basic() async throws {
        try await withClosing(try await Session.start(), close: { await $0.stop() }) { (s) async throws in
            await s.device.writeFile(at: "/lfs1/keep.txt", contents: [1, 2, 3])
            try await s.request(.write, .settings, 0, .textMap(["name": .text("app/x"), "val": .bytes([9])]))
            try await s.request(.write, .settings, 3)
            try await s.request(.write, .zephyrBasic, 0)
            #expect(await s.device.file(at: "/lfs1/keep.txt") == nil)
            #expect(await s.device.persistedSetting(named: "app/x") == nil)
        }
    }

    @Test("IPv6: the server binds ::1 and answers there")
    func ipv6() async throws {
        let s: Session
        do {
            s = try await Session.start(host: "::1")
        } catch {
            // A host without IPv6 loopback cannot run this test.
            return
        }
        try await withClosing(s, close: { await $0.stop() }) { (s) async throws in
            #expect(try await s.request(.write, .os, 0, .textMap(["d": .text("v6")]))["r"]?.textValue == "v6")
        }
    }
}

/// CRC-32 computed bit by bit, apart from the device's table-driven one.
enum ReferenceCRC32 {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xedb8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}
