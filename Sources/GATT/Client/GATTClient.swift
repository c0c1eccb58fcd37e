import Logging

/// A GATT client over one ``ATTBearer``: MTU exchange, discovery, reads, writes and notifications.
///
/// One ATT request is outstanding at a time, as the spec requires; later requests wait their
/// turn in call order. Commands (Write Without Response) and incoming notifications and
/// indications flow beside the outstanding request. A request unanswered within the transaction
/// timeout (30 s by default) fails with ``GATTError/timeout(request:after:)`` and closes the bearer.
/// Notifications and indications reach ``events`` only for handles subscribed to (through
/// ``setNotifications(_:for:)`` or ``subscribe(valueHandle:)``); others are logged and dropped.
/// Requests from the peer are answered as a server without attributes would answer them.
public actor GATTClient {
    /// How the client behaves.
    public struct Configuration: Sendable, Hashable {
        /// The receive MTU offered in the MTU exchange (23–517; 498 by default, as Nordic's
        /// Android library asks: one write then fills two 251-byte link-layer packets).
        public var preferredMTU: Int
        /// How long a request may wait for its response (the spec's 30 s by default).
        public var transactionTimeout: Duration

        /// Makes a configuration.
        public init(preferredMTU: Int = 498, transactionTimeout: Duration = .seconds(30)) {
            self.preferredMTU = preferredMTU
            self.transactionTimeout = transactionTimeout
        }
    }

    /// The ATT_MTU before any exchange.
    public static let defaultMTU = 23
    /// The largest ATT_MTU the spec allows for LE (the largest attribute value, 512, plus headers).
    public static let maximumMTU = 517
    /// Events ``events`` holds unread at most: past it a peer's flood of notifications drops the
    /// oldest unread, so memory stays bounded while the reader lags (the last event, `.closed`, is kept).
    public static let eventCapacity = 1024

    /// The bearer the client runs over.
    public nonisolated let bearer: any ATTBearer
    /// The configuration in force.
    public nonisolated let configuration: Configuration
    /// Notifications and indications of subscribed handles, then `.closed` once.
    public nonisolated let events: AsyncStream<GATTClientEvent>

    /// The ATT_MTU in force (23 until an exchange raises it).
    public private(set) var mtu = GATTClient.defaultMTU
    /// Why the client stopped, once it has (bearer closed, transaction timeout, ``close()``).
    public private(set) var closeReason: String?

    let clock: GATTClock
    let logger: Logger
    private let eventSink: AsyncStream<GATTClientEvent>.Continuation
    private var subscribed: Set<UInt16> = []
    private var transactionBusy = false
    private var transactionWaiters: [CheckedContinuation<Void, Never>] = []
    private var outstanding: Outstanding?
    private var tokens: UInt64 = 0
    private var ended = false

    /// A request waiting for its response.
    private struct Outstanding {
        let token: UInt64
        let request: ATTOpcode
        let expected: ATTOpcode
        var result: Result<ATTPDU, GATTError>?
        var continuation: CheckedContinuation<Result<ATTPDU, GATTError>, Never>?
    }

    /// Starts a client on `bearer`; it becomes the bearer's only reader.
    public init(
        bearer: any ATTBearer, configuration: Configuration = Configuration(), clock: GATTClock = .continuous,
        logger: Logger = Logger(label: "gatt")
    ) {
        self.bearer = bearer
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: GATTClientEvent.self, bufferingPolicy: .bufferingNewest(Self.eventCapacity))
        let inbound = bearer.inbound
        clock.task {
            for await event in inbound {
                await self.handle(event)
            }
            await self.bearerClosed(reason: "the ATT bearer ended")
        }
    }

    /// The largest value one Write Command or notification carries now: ATT_MTU − 3.
    public var maximumValueLength: Int { mtu - 3 }

    /// Whether the client has stopped.
    public var isClosed: Bool { closeReason != nil }

    /// Exchanges MTUs (ATT_EXCHANGE_MTU_REQ) offering ``Configuration/preferredMTU`` (bounded by
    /// the bearer's PDU size) and returns the ATT_MTU in force: the smaller of the two offers.
    ///
    /// A server that answers "Request Not Supported" leaves the MTU at 23.
    @discardableResult
    public func exchangeMTU() async throws(GATTError) -> Int {
        let ours = offeredMTU
        do throws(GATTError) {
            let response = try await transact(.exchangeMTURequest(clientRxMTU: UInt16(ours)))
            guard case .exchangeMTUResponse(let server) = response else { throw unexpected(response) }
            if server < GATTClient.defaultMTU {
                logger.warning("the server offers an ATT MTU of \(server), below the minimum 23; using 23")
            }
            mtu = max(GATTClient.defaultMTU, min(ours, Int(server)))
        } catch {
            guard case .att(let response) = error, response.code == .requestNotSupported else { throw error }
            logger.info("the server does not support the MTU exchange; ATT MTU stays \(mtu)")
        }
        logger.debug("ATT MTU \(mtu)")
        return mtu
    }

    /// Reads an attribute value (ATT_READ_REQ); at most ATT_MTU − 1 bytes.
    public func read(handle: UInt16) async throws(GATTError) -> [UInt8] {
        let response = try await transact(.readRequest(handle: handle))
        guard case .readResponse(let value) = response else { throw unexpected(response) }
        return value
    }

    /// Writes an attribute value and waits for the server's acknowledgement (ATT_WRITE_REQ).
    public func write(_ value: [UInt8], to handle: UInt16) async throws(GATTError) {
        try checkLength(value)
        let response = try await transact(.writeRequest(handle: handle, value: value))
        guard case .writeResponse = response else { throw unexpected(response) }
    }

    /// Writes without waiting for anything (ATT_WRITE_CMD); waits only while the bearer cannot take the PDU.
    public func writeWithoutResponse(_ value: [UInt8], to handle: UInt16) async throws(GATTError) {
        if let reason = closeReason { throw .closed(reason: reason) }
        try checkLength(value)
        try await send(.writeCommand(handle: handle, value: value))
    }

    /// Delivers notifications and indications of `valueHandle` to ``events`` (the server's
    /// configuration descriptor must already ask for them; ``setNotifications(_:for:)`` does both).
    public func subscribe(valueHandle: UInt16) {
        subscribed.insert(valueHandle)
    }

    /// Stops delivering `valueHandle`'s notifications and indications.
    public func unsubscribe(valueHandle: UInt16) {
        subscribed.remove(valueHandle)
    }

    /// Closes the bearer; requests in flight fail with ``GATTError/closed(reason:)``.
    public func close() async {
        if closeReason == nil { closeReason = "closed by the client" }
        await bearer.close()
    }

    // MARK: - Transactions

    private var offeredMTU: Int {
        min(max(configuration.preferredMTU, GATTClient.defaultMTU), GATTClient.maximumMTU, max(bearer.maximumPDUSize, GATTClient.defaultMTU))
    }

    /// Sends one request and waits for its response or Error Response, one transaction at a time.
    func transact(_ request: ATTPDU) async throws(GATTError) -> ATTPDU {
        guard let expected = request.opcode.expectedResponse else {
            preconditionFailure("\(request.opcode) is not a request")
        }
        await acquireTransaction()
        defer { releaseTransaction() }
        if let reason = closeReason { throw .closed(reason: reason) }
        tokens &+= 1
        let token = tokens
        outstanding = Outstanding(token: token, request: request.opcode, expected: expected)
        do {
            try await send(request)
        } catch {
            if outstanding?.token == token { outstanding = nil }
            throw error
        }
        let timeout = configuration.transactionTimeout
        let clock = self.clock
        let timer = clock.task {
            do { try await clock.sleep(for: timeout) } catch { return }
            await self.transactionTimedOut(token)
        }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ATTPDU, GATTError>, Never>) in
            if let result = outstanding?.result {
                continuation.resume(returning: result)
            } else {
                outstanding?.continuation = continuation
            }
        }
        timer.cancel()
        if outstanding?.token == token { outstanding = nil }
        return try result.get()
    }

    private func acquireTransaction() async {
        guard transactionBusy else {
            transactionBusy = true
            return
        }
        await withCheckedContinuation { transactionWaiters.append($0) }
    }

    private func releaseTransaction() {
        if transactionWaiters.isEmpty {
            transactionBusy = false
        } else {
            transactionWaiters.removeFirst().resume()
        }
    }

    private func complete(with result: Result<ATTPDU, GATTError>) {
        guard var entry = outstanding, entry.result == nil else { return }
        if let continuation = entry.continuation {
            entry.continuation = nil
            entry.result = result
            outstanding = entry
            continuation.resume(returning: result)
        } else {
            entry.result = result
            outstanding = entry
        }
    }

    private func transactionTimedOut(_ token: UInt64) async {
        guard let entry = outstanding, entry.token == token, entry.result == nil else { return }
        let timeout = configuration.transactionTimeout
        logger.error("no answer to \(entry.request) within \(timeout); closing the ATT bearer")
        if closeReason == nil { closeReason = "no answer to \(entry.request) within \(timeout)" }
        complete(with: .failure(.timeout(request: entry.request, after: timeout)))
        await bearer.close()
    }

    func send(_ pdu: ATTPDU) async throws(GATTError) {
        do {
            try await bearer.send(pdu.bytes)
        } catch {
            if case .closed(let reason) = error {
                // The bearer may know of the end before its `.closed` event reaches this client
                // (a host that handled Disconnection Complete); from now on the client is closed,
                // so whoever checks `isClosed` to decide on reconnecting sees it at once.
                if closeReason == nil { closeReason = reason }
                throw .closed(reason: reason)
            }
            throw .bearer(error)
        }
    }

    private func checkLength(_ value: [UInt8]) throws(GATTError) {
        guard value.count <= maximumValueLength else { throw .valueTooLong(size: value.count, limit: maximumValueLength) }
    }

    func unexpected(_ response: ATTPDU) -> GATTError {
        .invalidResponse("unexpected \(response.opcode)")
    }

    // MARK: - Receiving

    private func handle(_ event: ATTBearerEvent) async {
        switch event {
        case .pdu(let bytes):
            await receive(bytes)
        case .closed(let reason):
            bearerClosed(reason: reason)
        }
    }

    private func bearerClosed(reason: String) {
        guard !ended else { return }
        ended = true
        if closeReason == nil { closeReason = reason }
        let why = closeReason ?? reason
        logger.debug("ATT bearer closed: \(why)")
        // The outstanding request fails; queued ones then fail on the closed state, one by one.
        complete(with: .failure(.closed(reason: why)))
        eventSink.yield(.closed(reason: why))
        eventSink.finish()
    }

    private func receive(_ bytes: [UInt8]) async {
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(decoding: bytes)
        } catch {
            await receiveUndecodable(bytes, error: error)
            return
        }
        switch pdu {
        case .errorResponse(let request, let handle, let code):
            if let entry = outstanding, entry.result == nil, entry.request == request {
                complete(with: .failure(.att(ATTErrorResponse(request: request, handle: handle, code: code))))
            } else {
                logger.notice("ignoring an ATT error response to \(request) that no request is waiting for")
            }
        case .exchangeMTURequest(let clientMTU):
            let ours = offeredMTU
            mtu = max(GATTClient.defaultMTU, min(ours, Int(clientMTU)))
            logger.debug("the peer exchanged MTUs (\(clientMTU)); ATT MTU \(mtu)")
            try? await send(.exchangeMTUResponse(serverRxMTU: UInt16(ours)))
        case .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readByGroupTypeRequest:
            // This side holds no attributes: discovery finds nothing.
            try? await send(.errorResponse(request: pdu.opcode, handle: Self.firstHandle(of: pdu), code: .attributeNotFound))
        case .readRequest(let handle), .writeRequest(let handle, _):
            try? await send(.errorResponse(request: pdu.opcode, handle: handle, code: .invalidHandle))
        case .writeCommand(let handle, _):
            logger.notice("ignoring a write command to handle \(hex(handle)): this side has no attributes")
        case .handleValueNotification(let handle, let value):
            deliver(.notification(handle: handle, value: value))
        case .handleValueIndication(let handle, let value):
            try? await send(.handleValueConfirmation)
            deliver(.indication(handle: handle, value: value))
        case .handleValueConfirmation:
            logger.notice("ignoring a handle value confirmation: no indication was sent")
        case .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse, .readByTypeResponse,
            .readResponse, .readByGroupTypeResponse, .writeResponse:
            if let entry = outstanding, entry.result == nil, entry.expected == pdu.opcode {
                complete(with: .success(pdu))
            } else {
                logger.notice("ignoring \(pdu.opcode) that no request is waiting for")
            }
        }
    }

    private func receiveUndecodable(_ bytes: [UInt8], error: ATTDecodingError) async {
        guard let opcode = error.opcode else {
            logger.notice("ignoring an ATT PDU: \(error)")
            return
        }
        if let entry = outstanding, entry.result == nil, opcode == entry.expected || opcode == .errorResponse {
            logger.warning("bad answer to \(entry.request): \(error)")
            complete(with: .failure(.invalidResponse(error.description)))
        } else if opcode.isRequest || (!opcode.isDefined && !opcode.isCommand) {
            // A request this side cannot take, or an opcode it does not know: answer as the spec asks.
            let code: ATTErrorCode
            if case .malformed = error { code = .invalidPDU } else if case .invalidLength = error { code = .invalidPDU } else { code = .requestNotSupported }
            logger.notice("answering \(code.name) to an ATT PDU from the peer: \(error)")
            try? await send(.errorResponse(request: opcode, handle: 0, code: code))
        } else {
            logger.notice("ignoring an ATT PDU from the peer: \(error)")
        }
    }

    private func deliver(_ event: GATTClientEvent) {
        guard let handle = event.handle, subscribed.contains(handle) else {
            logger.notice("ignoring a value for handle \(hex(event.handle ?? 0)), which is not subscribed")
            return
        }
        eventSink.yield(event)
    }

    private static func firstHandle(of request: ATTPDU) -> UInt16 {
        switch request {
        case .findInformationRequest(let start, _), .findByTypeValueRequest(let start, _, _, _),
            .readByTypeRequest(let start, _, _), .readByGroupTypeRequest(let start, _, _):
            return start
        default:
            return 0
        }
    }
}

/// What a ``GATTClient`` delivers.
public enum GATTClientEvent: Sendable, Hashable {
    /// A notification of a subscribed handle.
    case notification(handle: UInt16, value: [UInt8])
    /// An indication of a subscribed handle (already confirmed).
    case indication(handle: UInt16, value: [UInt8])
    /// The bearer closed; nothing follows.
    case closed(reason: String)

    /// The attribute handle of a notification or indication.
    public var handle: UInt16? {
        switch self {
        case .notification(let handle, _), .indication(let handle, _): return handle
        case .closed: return nil
        }
    }
}
