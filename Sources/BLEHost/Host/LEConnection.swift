import GATT
import NIOConcurrencyHelpers

/// One LE connection of an ``LEHost``, as central (``LEHost/connect(to:parameters:timeout:)``) or
/// peripheral (``LEHost/accept(advertising:)``): its ATT channel as an `ATTBearer`, the LE
/// signalling channel answered by the host, and the link's current parameters.
public final class LEConnection: Sendable {
    /// The connection handle.
    public let handle: UInt16
    /// The peer's address.
    public let peer: LEAddress
    /// Whether this host is the connection's central (it connected) rather than its peripheral (a central connected to its advertising).
    public let isCentral: Bool
    /// The ATT channel (L2CAP fixed channel 4) as a bearer for the GATT client. Every bearer made
    /// here reads the one channel: give it to one GATT client.
    public var attBearer: L2CAPATTBearer { attBearer(disconnectReason: .remoteUserTerminated) }
    /// The ATT channel as a bearer whose `close()` ends the connection with `disconnectReason`
    /// (a peripheral powering off says ``HCIStatus/remotePowerOff``).
    public func attBearer(disconnectReason: HCIStatus) -> L2CAPATTBearer {
        L2CAPATTBearer(connection: self, maximumPDUSize: attMTU, disconnectReason: disconnectReason)
    }
    /// The ATT channel's MTU (the bearer's largest PDU).
    public let attMTU: Int

    let host: LEHost
    let inbox: AsyncInbox<ATTBearerEvent>
    /// This host's signalling requests waiting for the peer's answer.
    let signalRequests = SignalRequests()
    private let sendGate = AsyncGate()
    private let link: NIOLockedValueBox<Link>
    private let endWaiters = NIOLockedValueBox<[CheckedContinuation<Void, Never>]>([])
    /// Answers to the peer (signalling responses, Pairing Failed) on their way; past
    /// ``maximumAnswers`` a peer's further requests are dropped, so a flood costs no task each.
    private let answers = NIOLockedValueBox(0)
    static let maximumAnswers = 4

    /// The link as the controller last reported it.
    public struct Link: Sendable, Hashable {
        /// Connection interval in units of 1.25 ms.
        public var interval: UInt16
        /// Peripheral latency in connection events.
        public var latency: UInt16
        /// Supervision timeout in units of 10 ms.
        public var supervisionTimeout: UInt16
        /// Largest link-layer payload sent (27 until Data Length Extension).
        public var maxTxOctets = 27
        /// Largest link-layer payload received.
        public var maxRxOctets = 27
        /// Transmit PHY: 1 is 1M, 2 is 2M.
        public var txPHY: UInt8 = 1
        /// Receive PHY.
        public var rxPHY: UInt8 = 1
        /// Why the connection ended, once it has.
        public var endReason: String?
        /// The security the peer asked for that this host cannot give (pairing, encryption), if any.
        public var securityRequired: String?
    }

    init(host: LEHost, complete: LEConnectionComplete, attMTU: Int) {
        self.handle = complete.handle
        self.peer = complete.peer
        self.isCentral = complete.isCentral
        self.host = host
        self.inbox = AsyncInbox(capacity: 256)
        self.attMTU = attMTU
        self.link = NIOLockedValueBox(Link(interval: complete.interval, latency: complete.latency, supervisionTimeout: complete.supervisionTimeout))
    }

    /// The link's parameters now.
    public var current: Link { link.withLockedValue { $0 } }

    /// Whether the connection has ended.
    public var isEnded: Bool { link.withLockedValue { $0.endReason != nil } }

    /// Why the peer's security needs cannot be met, when it asked for pairing or answered an ATT
    /// request with Insufficient Authentication or Encryption; nil otherwise.
    public var securityRequired: String? { link.withLockedValue { $0.securityRequired } }

    func update(_ change: (inout Link) -> Void) {
        link.withLockedValue { change(&$0) }
    }

    /// Ends the connection (HCI Disconnect with `reason`) and waits until the controller confirms,
    /// or until the host's command timeout passes. Does nothing once the connection has ended.
    public func disconnect(reason: HCIStatus = .remoteUserTerminated) async {
        guard !isEnded else { return }
        host.abandonOptionalCommand()
        do {
            try await host.run(.disconnect(handle: handle, reason: reason))
        } catch .commandFailed(_, .unknownConnectionIdentifier) {
            host.connectionEnded(handle: handle, reason: .localHostTerminated, only: self)
            return
        } catch {
            host.logger.notice("disconnect of handle 0x\(hex(handle)) failed: \(error); dropping the connection")
            host.connectionEnded(handle: handle, reason: .localHostTerminated, only: self)
            return
        }
        let timer = host.clock.task { [self] in
            do { try await host.clock.sleep(for: host.configuration.commandTimeout) } catch { return }
            host.connectionEnded(handle: handle, reason: .localHostTerminated, only: self)
        }
        await waitUntilEnded()
        timer.cancel()
    }

    /// Waits until the connection ends, by either side.
    public func waitUntilEnded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = endWaiters.withLockedValue { waiters -> Bool in
                if isEnded { return true }
                waiters.append(continuation)
                return false
            }
            if ended { continuation.resume() }
        }
    }

    /// The connection ended: the bearer reports `.closed`, waiters resume.
    func ended(_ reason: String) {
        let first = link.withLockedValue { l -> Bool in
            guard l.endReason == nil else { return false }
            l.endReason = reason
            return true
        }
        guard first else { return }
        inbox.finish(with: .closed(reason: reason))
        signalRequests.endAll()
        let waiters = endWaiters.withLockedValue { w -> [CheckedContinuation<Void, Never>] in
            defer { w = [] }
            return w
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Sends one L2CAP PDU, fragmented to the controller's ACL size; PDUs go whole and in call order.
    func send(_ pdu: L2CAPPDU) async throws(LEHostError) {
        let size = host.controller?.aclDataLength ?? 27
        try await sendGate.withGate { () async throws(LEHostError) in
            for fragment in pdu.fragments(handle: handle, fragmentSize: size) {
                if let reason = link.withLockedValue({ $0.endReason }) { throw .disconnected(reason) }
                try await host.takeCredit(for: self)
                // The connection may have ended while this fragment waited: never send it on a
                // later connection that reuses the handle.
                if let reason = link.withLockedValue({ $0.endReason }) { throw .disconnected(reason) }
                do throws(HCITransportError) {
                    try await host.transport.send(.acl(fragment))
                } catch {
                    throw .transport(error)
                }
            }
        }
    }

    /// A whole PDU from the peer: ATT to the bearer, signalling answered, Security Manager refused.
    func receive(_ pdu: L2CAPPDU) async {
        switch pdu.channel {
        case 0x0004:
            noteSecurity(inATT: pdu.payload)
            await inbox.push(.pdu(pdu.payload))
        case L2CAPSignal.channel:
            answerSignal(pdu.payload)
        case 0x0006:
            refusePairing(pdu.payload)
        default:
            host.logger.notice("L2CAP PDU on channel 0x\(hex(pdu.channel)) (\(pdu.payload.count) bytes) from \(peer); no such channel here, dropped")
        }
    }

    private func noteSecurity(inATT payload: [UInt8]) {
        // Error Response: opcode 0x01, request opcode, handle (2), error code.
        guard payload.count >= 5, payload[0] == 0x01 else { return }
        let code = ATTErrorCode(rawValue: payload[4])
        guard code.needsPairing else { return }
        let text = "the device requires a paired, encrypted link (ATT \(code)); this HCI host does not pair or encrypt"
        link.withLockedValue { if $0.securityRequired == nil { $0.securityRequired = text } }
        host.logger.warning("\(text)")
    }

    private func answerSignal(_ payload: [UInt8]) {
        let signal: L2CAPSignal
        do {
            signal = try L2CAPSignal.decode(payload)
        } catch {
            host.logger.notice("malformed L2CAP signalling PDU from \(peer) ignored: \(error)")
            return
        }
        if signalRequests.deliver(signal) { return }
        switch signal.reply(asCentral: isCentral) {
        case .ignore(let why):
            host.logger.debug("\(why)")
        case .respond(let response, let update):
            host.logger.info("L2CAP signalling 0x\(hex(signal.code)) from \(peer): answering 0x\(hex(response.code))")
            guard takeAnswerSlot() else { return }
            host.clock.task { [self] in
                defer { releaseAnswerSlot() }
                do {
                    try await send(L2CAPPDU(channel: L2CAPSignal.channel, payload: response.bytes))
                } catch {
                    host.logger.notice("cannot answer L2CAP signalling: \(error)")
                    return
                }
                if let update { _ = await host.runOptional(.leConnectionUpdate(handle: handle, parameters: update)) }
            }
        }
    }

    private func refusePairing(_ payload: [UInt8]) {
        guard let code = payload.first else { return }
        // Security Request (0x0B) or Pairing Request (0x01): answer Pairing Failed, "pairing not supported" (0x05).
        guard code == 0x0B || code == 0x01 else { return }
        let text = "the device asked for pairing; this HCI host does not pair or encrypt"
        link.withLockedValue { if $0.securityRequired == nil { $0.securityRequired = text } }
        host.logger.warning("\(text)")
        guard takeAnswerSlot() else { return }
        host.clock.task { [self] in
            defer { releaseAnswerSlot() }
            try? await send(L2CAPPDU(channel: 0x0006, payload: [0x05, 0x05]))
        }
    }

    /// Takes one of the ``maximumAnswers`` slots for an answer to the peer; false (logged) when all are taken.
    private func takeAnswerSlot() -> Bool {
        let taken = answers.withLockedValue { count -> Bool in
            guard count < Self.maximumAnswers else { return false }
            count += 1
            return true
        }
        if !taken { host.logger.debug("\(Self.maximumAnswers) answers to \(peer) already on their way; a request is dropped") }
        return taken
    }

    private func releaseAnswerSlot() {
        answers.withLockedValue { $0 -= 1 }
    }
}
