import GATT
import Logging
import SMP

/// One connection of the simulated peripheral: the ATT server, the SMP write reassembly, the
/// link pacing, and the notifications that carry the device's responses back.
actor GATTPeripheralConnection {
    let bearer: any ATTBearer
    private let device: SimulatedDevice
    private let transport: TransportID
    private let clock: SMPClock
    private let logger: Logger
    private let uplink: BLELinkPacer?
    private let downlink: BLELinkPacer?
    private var server: SMPATTServer
    private var reassembler: SMPWriteReassembler
    private var closed = false
    private let responses: AsyncStream<PendingResponse>
    private let responseSink: AsyncStream<PendingResponse>.Continuation
    private let responseDropped: @Sendable () -> Void

    /// A response waiting to go out as notifications; `sent` resumes when it is out (or dropped).
    private struct PendingResponse: Sendable {
        let bytes: [UInt8]
        let enqueued: SMPInstant
        let sent: CheckedContinuation<Void, Never>
    }

    init(
        bearer: any ATTBearer, device: SimulatedDevice, transport: TransportID, configuration: GATTPeripheralConfiguration,
        clock: SMPClock, logger: Logger, responseDropped: @escaping @Sendable () -> Void
    ) {
        self.responseDropped = responseDropped
        self.bearer = bearer
        self.device = device
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.uplink = configuration.link.map { BLELinkPacer(model: $0, clock: clock) }
        self.downlink = configuration.link.map { BLELinkPacer(model: $0, clock: clock) }
        self.server = SMPATTServer(
            database: SMPGATTDatabase(deviceName: configuration.deviceName ?? device.configuration.nodeName), maximumMTU: configuration.maximumMTU,
            requiresEncryption: configuration.requiresEncryption)
        self.reassembler = SMPWriteReassembler(bufferSize: device.configuration.bufferSize, reassembles: configuration.reassembly)
        (responses, responseSink) = AsyncStream.makeStream(of: PendingResponse.self)
    }

    /// Starts reading the bearer and sending responses; runs until the bearer closes.
    nonisolated func start() {
        let clock = self.clock
        let inbound = bearer.inbound
        if let uplink {
            // Stamp each PDU when it arrives, so that pacing knows what was queued behind what.
            let (stamped, stampSink) = AsyncStream.makeStream(of: (ATTBearerEvent, SMPInstant).self)
            clock.task {
                for await event in inbound { stampSink.yield((event, clock.now)) }
                stampSink.finish()
            }
            clock.task {
                for await (event, arrival) in stamped {
                    if case .pdu(let pdu) = event { await uplink.transmit(attPDUSize: pdu.count, availableAt: arrival) }
                    await self.handle(event)
                }
            }
        } else {
            clock.task {
                for await event in inbound { await self.handle(event) }
            }
        }
        let responses = self.responses
        clock.task {
            for await response in responses {
                await self.notify(response.bytes, enqueued: response.enqueued)
                response.sent.resume()
            }
        }
    }

    /// The ATT_MTU in force.
    var mtu: Int { server.mtu }

    /// Whether the client enabled notifications.
    var notificationsEnabled: Bool { server.notificationsEnabled }

    /// Closes the connection.
    func close() async {
        await bearer.close()
    }

    // MARK: - From the client

    private func handle(_ event: ATTBearerEvent) async {
        switch event {
        case .closed(let reason):
            guard !closed else { return }
            closed = true
            let dropped = reassembler.pendingByteCount
            reassembler.drop()
            logger.debug("GATT connection closed: \(reason)\(dropped > 0 ? "; \(dropped) bytes of a partial request dropped" : "")")
            responseSink.finish()
        case .pdu(let bytes):
            guard !closed else { return }
            switch server.receive(bytes) {
            case .respond(let pdu):
                await send(pdu, availableAt: clock.now)
            case .smpWrite(let value, let acknowledged):
                await write(value, acknowledged: acknowledged)
            case .configurationChanged(let value, let response):
                if value & 0x0001 == 0, reassembler.pendingByteCount > 0 {
                    logger.notice("CCCD disabled: dropping \(reassembler.pendingByteCount) bytes of a partial request")
                    reassembler.drop()
                }
                if let response { await send(response, availableAt: clock.now) }
            case .ignore(let reason):
                logger.notice("ignoring an ATT PDU: \(reason)")
            }
        }
    }

    private func write(_ value: [UInt8], acknowledged: Bool) async {
        switch reassembler.collect(value) {
        case .incomplete:
            if acknowledged { await send(.writeResponse, availableAt: clock.now) }
        case .packet(let packet):
            if acknowledged { await send(.writeResponse, availableAt: clock.now) }
            await device.receive(packet, from: transport) { [weak self] response in
                await self?.enqueue(response)
            }
        case .refused(let code, let reason):
            logger.notice("SMP write refused with \(code.name): \(reason)")
            if acknowledged {
                await send(.errorResponse(request: .writeRequest, handle: SMPGATTDatabase.smpValueHandle, code: code), availableAt: clock.now)
            }
        }
    }

    // MARK: - To the client

    /// Queues a response and waits until its notifications are out, as `smp_bt` blocks its work
    /// queue; a response for a connection that has gone away is dropped.
    private func enqueue(_ response: [UInt8]) async {
        guard !closed else {
            logger.debug("dropping a \(response.count)-byte response: the connection has gone away")
            return
        }
        let now = clock.now
        let sink = responseSink
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if case .terminated = sink.yield(PendingResponse(bytes: response, enqueued: now, sent: continuation)) {
                continuation.resume()
            }
        }
    }

    /// Sends one response as notifications of ATT_MTU − 3 bytes, unless the client has not
    /// enabled them (then it is dropped with a log line, as Zephyr's notify fails).
    private func notify(_ response: [UInt8], enqueued: SMPInstant) async {
        guard !closed else { return }
        guard server.notificationsEnabled else {
            logger.notice("dropping a \(response.count)-byte SMP response: the client has not enabled notifications (CCCD)")
            responseDropped()
            return
        }
        var offset = 0
        while offset < response.count {
            guard !closed, server.notificationsEnabled else {
                logger.notice("dropping the rest of an SMP response (\(response.count - offset) bytes): notifications stopped")
                return
            }
            let unit = server.mtu - 3
            let end = min(offset + unit, response.count)
            await send(.handleValueNotification(handle: SMPGATTDatabase.smpValueHandle, value: Array(response[offset..<end])), availableAt: enqueued)
            offset = end
        }
    }

    private func send(_ pdu: ATTPDU, availableAt: SMPInstant) async {
        let bytes = pdu.bytes
        if let downlink { await downlink.transmit(attPDUSize: bytes.count, availableAt: availableAt) }
        do {
            try await bearer.send(bytes)
        } catch {
            logger.debug("cannot send \(pdu.opcode): \(error)")
        }
    }
}
