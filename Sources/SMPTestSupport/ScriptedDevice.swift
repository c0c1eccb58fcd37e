import CBOR
import SMP

/// A device on the device end of a `LoopbackTransport` that answers as a test scripts it: it
/// records every request (in order, resends included) and answers through a handler called for
/// each one, or by hand with ``respond(to:with:writer:)``. For behaviour the simulator does not
/// have: the quirks of fielded devices, hostile answers, exact timing of answers.
public actor ScriptedDevice {
    /// What the handler does with one request.
    public enum Reply: Sendable {
        /// Answer with this payload in a response header matching the request.
        case payload(CBORValue)
        /// Send these bytes as they are.
        case raw([UInt8])
        /// Send nothing (a dropped request or response).
        case ignore
    }

    /// Decides the answer to the request that arrived `arrival`-th (0 first).
    public typealias Handler = @Sendable (_ request: SMPPacket, _ arrival: Int) async -> Reply

    /// Why a wait for requests gave up.
    public struct WaitTimeout: Error, CustomStringConvertible {
        /// Requests wanted.
        public let wanted: Int
        /// Requests seen.
        public let got: Int
        /// What went wrong.
        public var description: String { "the device saw \(got) requests, not \(wanted), within the time limit" }
    }

    /// The device end of the loopback.
    public nonisolated let loopback: LoopbackDevice
    /// The clock waits are measured on.
    public nonisolated let clock: SMPClock
    /// Every packet the client sent, in arrival order (resends included).
    public private(set) var received: [SMPPacket] = []
    /// Raw bytes of every packet, in arrival order.
    public private(set) var receivedBytes: [[UInt8]] = []
    /// Requests answered so far (by arrival index).
    public private(set) var answered: Set<Int> = []
    /// The most requests that were waiting for an answer at one time, counted at each arrival.
    public private(set) var maximumOutstanding = 0
    private let handler: Handler?
    private let writer: CBORWriter
    private let responseVersion: SMPVersion?
    private var pump: Task<Void, Never>?
    private var waiters: [(id: Int, condition: @Sendable (isolated ScriptedDevice) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextWaiter = 0

    /// Makes a device on `transport`; answers are encoded by `writer` (canonical by default; a
    /// Zephyr-like writer uses indefinite lengths), with `responseVersion` in their header when given.
    public init(
        _ transport: LoopbackTransport, clock: SMPClock = .continuous, writer: CBORWriter = CBORWriter(),
        responseVersion: SMPVersion? = nil, handler: Handler? = nil
    ) {
        self.loopback = transport.device
        self.clock = clock
        self.writer = writer
        self.responseVersion = responseVersion
        self.handler = handler
    }

    /// Starts reading requests; call once, before the client sends. The reading task keeps the
    /// device alive until the transport closes, so a test need not hold on to it.
    public func start() {
        guard pump == nil else { return }
        let requests = loopback.requests
        pump = clock.task {
            for await bytes in requests {
                await self.arrive(bytes)
            }
        }
    }

    /// Makes a device and starts it.
    public static func started(
        _ transport: LoopbackTransport, clock: SMPClock = .continuous, writer: CBORWriter = CBORWriter(),
        responseVersion: SMPVersion? = nil, handler: Handler? = nil
    ) async -> ScriptedDevice {
        let device = ScriptedDevice(transport, clock: clock, writer: writer, responseVersion: responseVersion, handler: handler)
        await device.start()
        return device
    }

    /// Requests not answered yet.
    public var outstanding: Int { received.count - answered.count }

    private func arrive(_ bytes: [UInt8]) async {
        let index = received.count
        receivedBytes.append(bytes)
        guard let packet = try? SMPPacket(decoding: bytes) else {
            // Kept in `receivedBytes`; a test that cares checks it.
            return
        }
        received.append(packet)
        maximumOutstanding = max(maximumOutstanding, outstanding)
        wakeWaiters()
        guard let handler else { return }
        switch await handler(packet, index) {
        case .payload(let payload):
            respond(to: index, with: payload)
        case .raw(let bytes):
            answered.insert(index)
            send(bytes)
        case .ignore:
            break
        }
    }

    /// Answers the request that arrived `index`-th, with a header that matches it.
    public func respond(to index: Int, with payload: CBORValue, writer: CBORWriter? = nil) {
        answered.insert(index)
        var header = received[index].header
        if let responseVersion { header.version = responseVersion }
        send(Self.response(to: header, payload: payload, writer: writer ?? self.writer))
        wakeWaiters()
    }

    /// Sends raw bytes to the client.
    public nonisolated func send(_ bytes: [UInt8]) {
        loopback.respond(bytes)
    }

    /// A response packet for `request`: response op, same version, group, seq and command.
    public static func response(to request: SMPHeader, payload: CBORValue, writer: CBORWriter = CBORWriter()) -> [UInt8] {
        let body = writer.encode(payload)
        var header = request
        header.operation = request.operation.response
        header.length = UInt16(body.count)
        return header.packet(payload: body)
    }

    /// Waits until at least `count` requests arrived, at most `limit` on the device's clock.
    @discardableResult
    public func waitForRequests(_ count: Int, limit: Duration = .seconds(20)) async throws -> [SMPPacket] {
        guard try await wait(limit: limit, { $0.received.count >= count }) else {
            throw WaitTimeout(wanted: count, got: received.count)
        }
        return received
    }

    /// Waits until `condition` holds for the device, at most `limit` on the device's clock.
    public func waitUntil(limit: Duration = .seconds(20), _ condition: @escaping @Sendable (isolated ScriptedDevice) -> Bool) async throws {
        guard try await wait(limit: limit, condition) else { throw WaitTimeout(wanted: -1, got: received.count) }
    }

    private func wait(limit: Duration, _ condition: @escaping @Sendable (isolated ScriptedDevice) -> Bool) async throws -> Bool {
        if condition(self) { return true }
        nextWaiter += 1
        let id = nextWaiter
        let clock = self.clock
        let timer = clock.task {
            try? await clock.sleep(for: limit)
            self.expire(id)
        }
        let met = await withCheckedContinuation { continuation in
            waiters.append((id, condition, continuation))
        }
        timer.cancel()
        try Task.checkCancellation()
        return met
    }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: false)
    }

    private func wakeWaiters() {
        var still: [(id: Int, condition: @Sendable (isolated ScriptedDevice) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
        for waiter in waiters {
            if waiter.condition(self) { waiter.continuation.resume(returning: true) } else { still.append(waiter) }
        }
        waiters = still
    }
}

extension ScriptedDevice {
    /// A device that answers every request with `script(header, request map)`, and a client on
    /// it; `body` runs with the client, which is closed after.
    public static func withClient(
        clock: SMPClock = .continuous, responseVersion: SMPVersion = .v2, indefinite: Bool = true,
        configuration: SMPClient.Configuration = SMPClient.Configuration(timeout: .seconds(1), retries: 0),
        script: @escaping @Sendable (_ header: SMPHeader, _ request: CBORValue) -> CBORValue,
        _ body: (SMPClient) async throws -> Void
    ) async throws {
        let transport = LoopbackTransport()
        let writer = CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: indefinite)
        _ = await ScriptedDevice.started(transport, clock: clock, writer: writer, responseVersion: responseVersion) { packet, _ in
            guard let request = try? packet.decodedPayload() else { return .ignore }
            return .payload(script(packet.header, request))
        }
        let client = SMPClient(transport: transport, configuration: configuration, clock: clock)
        do {
            try await body(client)
        } catch {
            await client.close()
            throw error
        }
        await client.close()
    }
}
