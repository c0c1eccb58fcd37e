import SMPTestSupport
import CBOR
import McuBoot
import SMP
import SMPSimulator

/// A client talking to a simulated device; the loopback ``Fixture`` and the UDP session share these helpers.
protocol DeviceSession {
    var device: SimulatedDevice { get }
    var client: SMPClient { get }
}

extension DeviceSession {
    /// Sends a request and returns the response map (throws `SMPError.device` on an error answer).
    @discardableResult
    func request(_ op: SMPOperation, _ group: SMPGroup, _ command: UInt8, _ payload: CBORValue = .map([])) async throws -> CBORValue {
        // Resent on timeouts except reset and erase, as the managers' request types say.
        let resend = !(group == .os && command == 5) && !(group == .image && command == 5)
        return try await client.request(op, group: group, command: command, payload: payload, retryPolicy: resend ? .resend : .doNotResend)
    }

    /// The device error a request is answered with, or nil on success.
    func error(_ op: SMPOperation, _ group: SMPGroup, _ command: UInt8, _ payload: CBORValue = .map([])) async throws -> SMPDeviceError? {
        try await deviceError { try await request(op, group, command, payload) }
    }

    /// Uploads an image in chunks, continuing from the device's `off`; returns the last response.
    @discardableResult
    func upload(_ image: [UInt8], image index: Int = 0, upgrade: Bool? = nil, chunk: Int = 1024, sha: [UInt8]? = nil) async throws -> CBORValue {
        var off = 0
        var response = CBORValue.map([])
        var rounds = 0
        repeat {
            let end = min(image.count, off + chunk)
            var fields: [(key: CBORValue, value: CBORValue)] = [
                (key: .text("off"), value: .int(off)), (key: .text("data"), value: .bytes(Array(image[off..<end]))),
            ]
            if off == 0 {
                fields += [
                    (key: .text("len"), value: .int(image.count)), (key: .text("image"), value: .int(index)),
                    (key: .text("sha"), value: .bytes(sha ?? fileSHA(image))),
                ]
                if let upgrade { fields.append((key: .text("upgrade"), value: .bool(upgrade))) }
            }
            response = try await request(.write, .image, 1, .map(fields))
            off = response["off"]?.intValue ?? 0
            rounds += 1
        } while off < image.count && rounds < 10_000
        return response
    }

    /// Image state write; returns the new state list.
    @discardableResult
    func setState(hash: [UInt8]?, confirm: Bool) async throws -> CBORValue {
        var fields: [(key: CBORValue, value: CBORValue)] = [(key: .text("confirm"), value: .bool(confirm))]
        if let hash { fields.append((key: .text("hash"), value: .bytes(hash))) }
        return try await request(.write, .image, 0, .map(fields))
    }

    /// Sends the reset command and waits until the device has rebooted and answers again.
    func resetAndWait() async throws {
        let before = await device.bootCount
        try await request(.write, .os, 5)
        await device.waitForBoot(before + 1)
        await device.waitUntilOnline()
    }
}

/// The device error `body` fails with, or nil when it succeeds; any other error is thrown on.
func deviceError(_ body: () async throws -> Void) async throws -> SMPDeviceError? {
    do {
        try await body()
        return nil
    } catch SMPError.device(let error) {
        return error
    }
}

/// A device served over an in-memory loopback, with a client on the other end.
struct Fixture: DeviceSession {
    let device: SimulatedDevice
    let transport: LoopbackTransport
    let client: SMPClient
    /// The images running in slot 0, by image number.
    let runningImages: [[UInt8]]

    static func make(
        configuration: DeviceConfiguration = .testing, link: LinkConfiguration = LinkConfiguration(),
        faults: FaultConfiguration = FaultConfiguration(), timeout: Duration = .seconds(3), retries: Int = 0,
        maximumInFlight: Int = 1, version: SMPVersion = .v2
    ) async -> Fixture {
        let clock = VirtualRuntime.currentClock
        let device = SimulatedDevice(configuration: configuration, link: link, faults: faults, clock: clock)
        let running = await device.installTestImages()
        let transport = await device.makeLoopbackTransport()
        let client = SMPClient(
            transport: transport,
            configuration: SMPClient.Configuration(version: version, timeout: timeout, retries: retries, maximumInFlight: maximumInFlight),
            clock: clock)
        return Fixture(device: device, transport: transport, client: client, runningImages: running)
    }

    func close() async {
        await client.close()
        await device.stopServing()
    }
}

extension SimulatedDevice {
    /// Installs the tests' running images (version 1.0.0, 3000-byte payloads) in slot 0 of every image.
    @discardableResult
    func installTestImages() async -> [[UInt8]] {
        installRunningImages(version: ImageVersion(1, 0, 0), payloadSize: 3000)
    }
}

extension DeviceConfiguration {
    /// Small slots and fast reboots for tests.
    static var testing: DeviceConfiguration {
        var c = DeviceConfiguration()
        c.slotSize = 0x10000
        c.resetDelay = .milliseconds(10)
        c.bootDuration = .milliseconds(30)
        return c
    }
}

/// Sends raw bytes over a loopback link and collects what comes back, bypassing `SMPClient`.
struct RawLink {
    let device: SimulatedDevice
    let transport: LoopbackTransport
    let inbox: PacketInbox

    static func make(configuration: DeviceConfiguration = .testing, link: LinkConfiguration = LinkConfiguration()) async -> RawLink {
        let clock = VirtualRuntime.currentClock
        let device = SimulatedDevice(configuration: configuration, link: link, clock: clock)
        await device.installTestImages()
        let transport = await device.makeLoopbackTransport(maximumPacketSize: 65_535)
        return RawLink(device: device, transport: transport, inbox: PacketInbox(transport.events, clock: clock))
    }

    /// Sends the bytes and returns the responses that arrive within `window` (stops early at `expecting`).
    func exchange(_ bytes: [UInt8], expecting count: Int = 1, window: Duration = .seconds(3)) async throws -> [[UInt8]] {
        try await transport.send(bytes)
        return await inbox.take(count, window: window)
    }

    func close() async {
        await transport.close()
        await device.stopServing()
    }
}

/// Collects the packets a transport receives, for tests to take.
actor PacketInbox {
    private var packets: [[UInt8]] = []
    private let clock: SMPClock

    init(_ events: SMPTransportEvents, clock: SMPClock) {
        self.clock = clock
        clock.task {
            for await event in events {
                if case .received(let packet) = event { await self.append(packet) }
            }
        }
    }

    private func append(_ packet: [UInt8]) { packets.append(packet) }

    /// Up to `count` packets, waiting at most `window` for them.
    func take(_ count: Int, window: Duration) async -> [[UInt8]] {
        let deadline = clock.now + window
        while packets.count < count && clock.now < deadline {
            try? await clock.sleep(for: .milliseconds(5))
        }
        let taken = Array(packets.prefix(count))
        packets.removeFirst(taken.count)
        return taken
    }
}

/// A request packet: header (version, op, group, seq, command) and payload.
func packet(version: UInt8 = 1, op: UInt8, group: UInt16, sequence: UInt8 = 0x42, command: UInt8, payload: [UInt8], length: Int? = nil) -> [UInt8] {
    let len = length ?? payload.count
    return [version << 3 | op, 0, UInt8(len >> 8), UInt8(len & 0xff), UInt8(group >> 8), UInt8(group & 0xff), sequence, command] + payload
}

/// Decodes the payload of a response packet.
func payloadValue(_ response: [UInt8]) throws -> CBORValue {
    try CBORReader().decode(response.dropFirst(8))
}

/// Hex of bytes, for readable expectations.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined(separator: " ")
}

/// Bytes from a hex string with optional spaces.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// SHA-256 of a whole image file (the upload `sha`), computed by the client's McuBoot module.
func fileSHA(_ image: [UInt8]) -> [UInt8] {
    (try? McuBootImage(bytes: image).fileSHA256) ?? []
}
