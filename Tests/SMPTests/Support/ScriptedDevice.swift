import SMPTestSupport
import CBOR
import SMP
import Testing

/// Hex helpers for byte-exact expectations.
enum Hex {
    /// Bytes from hex text; spaces and newlines are ignored.
    static func bytes(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        precondition(digits.count % 2 == 0, "odd number of hex digits in \(text)")
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// Lowercase hex text of bytes.
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }
}

/// A device for `SMPClient` tests, on the device end of a `LoopbackTransport`: it records every
/// request it receives (in order) and answers as the test scripts it, either by hand with
/// `respond(to:with:)` or through a handler called for each arriving request.
actor ScriptedDevice {
    /// What the handler does with one request.
    enum Reply: Sendable {
        /// Answer with this payload in a response header matching the request.
        case payload(CBORValue)
        /// Send nothing (a dropped request or response).
        case ignore
    }

    typealias Handler = @Sendable (_ request: SMPPacket, _ arrival: Int) async -> Reply

    /// Why a wait for requests gave up.
    struct WaitTimeout: Error, CustomStringConvertible {
        let wanted: Int
        let got: Int
        var description: String { "the device saw \(got) requests, not \(wanted), within the time limit" }
    }

    nonisolated let loopback: LoopbackDevice
    /// Every packet the client sent, in arrival order (resends included).
    private(set) var received: [SMPPacket] = []
    /// Raw bytes of every packet, in arrival order.
    private(set) var receivedBytes: [[UInt8]] = []
    /// Requests answered so far (by arrival index).
    private(set) var answered: Set<Int> = []
    /// The most requests that were waiting for an answer at one time, counted at each arrival.
    private(set) var maximumOutstanding = 0
    private var handler: Handler?
    private var pump: Task<Void, Never>?

    init(_ transport: LoopbackTransport, handler: Handler? = nil) {
        self.loopback = transport.device
        self.handler = handler
    }

    /// Starts reading requests; call once, before the client sends. The reading task keeps the
    /// device alive until the transport closes, so a test need not hold on to it.
    func start() {
        guard pump == nil else { return }
        let requests = loopback.requests
        pump = Task {
            for await bytes in requests {
                await self.arrive(bytes)
            }
        }
    }

    /// Makes a device and starts it.
    static func started(_ transport: LoopbackTransport, handler: Handler? = nil) async -> ScriptedDevice {
        let device = ScriptedDevice(transport, handler: handler)
        await device.start()
        return device
    }

    /// Requests not answered yet.
    var outstanding: Int { received.count - answered.count }

    private func arrive(_ bytes: [UInt8]) async {
        let packet: SMPPacket
        do {
            packet = try SMPPacket(decoding: bytes)
        } catch {
            Issue.record("the client sent an undecodable packet \(Hex.string(bytes)): \(error)")
            return
        }
        let index = received.count
        received.append(packet)
        receivedBytes.append(bytes)
        maximumOutstanding = max(maximumOutstanding, outstanding)
        guard let handler else { return }
        switch await handler(packet, index) {
        case .payload(let payload):
            respond(to: index, with: payload)
        case .ignore:
            break
        }
    }

    /// Answers the request that arrived `index`-th, with a header that matches it.
    func respond(to index: Int, with payload: CBORValue, writer: CBORWriter = CBORWriter()) {
        answered.insert(index)
        send(Self.response(to: received[index].header, payload: payload, writer: writer))
    }

    /// Sends raw bytes to the client.
    nonisolated func send(_ bytes: [UInt8]) {
        loopback.respond(bytes)
    }

    /// A response packet for `request`: response op, same version, group, seq and command.
    static func response(to request: SMPHeader, payload: CBORValue, writer: CBORWriter = CBORWriter()) -> [UInt8] {
        let body = writer.encode(payload)
        var header = request
        header.operation = request.operation.response
        header.length = UInt16(body.count)
        return header.bytes + body
    }

    /// Waits until at least `count` requests arrived (up to a generous limit, to avoid hangs).
    @discardableResult
    func waitForRequests(_ count: Int, limit: Duration = .seconds(20)) async throws -> [SMPPacket] {
        let deadline = ContinuousClock.now + limit
        while received.count < count {
            guard ContinuousClock.now < deadline else { throw WaitTimeout(wanted: count, got: received.count) }
            try await Task.sleep(for: .milliseconds(1))
        }
        return received
    }

    /// Waits until `condition` holds for the device (up to a generous limit).
    func waitUntil(limit: Duration = .seconds(20), _ condition: @Sendable (isolated ScriptedDevice) -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition(self) {
            guard ContinuousClock.now < deadline else { throw WaitTimeout(wanted: -1, got: received.count) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// A device handler that echoes `{"d": x}` as `{"r": x}`.
let echoHandler: ScriptedDevice.Handler = { request, _ in
    let value = try? request.decodedPayload()
    return .payload(.textMap(["r": value?["d"] ?? .null]))
}
