import GATT
import NIOConcurrencyHelpers

extension LEHost {
    /// Reads the controller's packets until the transport ends; the host's only reader.
    func readLoop() async {
        for await event in transport.inbound {
            switch event {
            case .packet(.event(let code, let parameters)):
                do {
                    handle(try HCIEvent.decode(code: code, parameters: parameters))
                } catch {
                    logger.notice("undecodable HCI event 0x\(hex(code)) ignored: \(error)")
                }
            case .packet(.acl(let packet)):
                await receive(packet)
            case .packet(.command(let opcode, _)):
                logger.notice("the controller sent a command packet (\(HCICommand.name(of: opcode))); ignored")
            case .closed(let reason):
                shutDown("the link to the controller ended: \(reason)")
            }
        }
        shutDown("the link to the controller ended")
    }

    /// Acts on one event.
    func handle(_ event: HCIEvent) {
        switch event {
        case .commandComplete(_, let opcode, let parameters):
            guard opcode != 0 else { return }
            guard let status = parameters.first else {
                completeCommand(opcode: opcode, .failure(.invalidAnswer("\(HCICommand.name(of: opcode)) completed without a status")))
                return
            }
            completeCommand(
                opcode: opcode,
                status == 0 ? .success(parameters) : .failure(.commandFailed(command: HCICommand.name(of: opcode), status: HCIStatus(rawValue: status))))
        case .commandStatus(let status, _, let opcode):
            guard opcode != 0 else { return }
            completeCommand(
                opcode: opcode, status == .success ? .success([]) : .failure(.commandFailed(command: HCICommand.name(of: opcode), status: status)))
        case .disconnectionComplete(let status, let handle, let reason):
            guard status == .success else {
                logger.notice("disconnecting handle 0x\(hex(handle)) failed: \(status)")
                return
            }
            connectionEnded(handle: handle, reason: reason)
        case .numberOfCompletedPackets(let entries):
            let excess = state.withLockedValue { s in entries.reduce(0) { $0 + s.credits.complete(Int($1.count), on: $1.handle) } }
            if excess > 0 { logger.debug("Number Of Completed Packets reported \(excess) packets the host did not send; ignored") }
            grantCredits()
        case .hardwareError(let code):
            logger.error("the controller reports hardware error 0x\(hex(code))")
        case .dataBufferOverflow:
            logger.warning("the controller's ACL buffers overflowed")
        case .encryptionChange(let status, let handle, let enabled):
            logger.info("encryption on handle 0x\(hex(handle)): \(enabled ? "on" : "off") (\(status))")
        case .le(let subevent):
            handle(subevent)
        case .unknown(let code, let parameters):
            logger.debug("HCI event 0x\(hex(code)) (\(parameters.count) bytes) ignored")
        }
    }

    private func handle(_ event: LEMetaEvent) {
        switch event {
        case .connectionComplete(let complete):
            connectionCompleted(complete)
        case .advertisingReports(let reports):
            let continuation = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
                guard var scan = s.scan, !scan.done else { return nil }
                // Moved out and back: a copy left in the state would make each report copy the
                // whole table (copy on write), thousands of entries per advertisement in a crowd.
                s.scan = nil
                var changed = false
                for report in reports where scan.collector.add(report) { changed = true }
                var continuation: CheckedContinuation<Void, Never>?
                // Only a change of the results can change what `stop` says.
                if changed, let stop = scan.stop, stop(scan.collector.results) {
                    scan.done = true
                    continuation = scan.continuation
                    scan.continuation = nil
                }
                s.scan = scan
                return continuation
            }
            continuation?.resume()
        case .connectionUpdateComplete(let status, let handle, let interval, let latency, let timeout):
            if status == .success, let connection = state.withLockedValue({ $0.connections[handle] }) {
                connection.update { $0.interval = interval; $0.latency = latency; $0.supervisionTimeout = timeout }
            }
            logger.info("connection 0x\(hex(handle)) parameters: interval \(Double(interval) * 1.25) ms, latency \(latency) (\(status))")
        case .remoteConnectionParameterRequest(let handle, let minimum, let maximum, let latency, let timeout):
            let parameters = LEConnectionParameters(minimumInterval: minimum, maximumInterval: maximum, latency: latency, supervisionTimeout: timeout)
            // One reply on its way per connection the host keeps: a flood of requests costs no task each.
            let answer = state.withLockedValue { s -> Bool in
                guard s.connections[handle] != nil else { return false }
                return s.parameterReplies.insert(handle).inserted
            }
            guard answer else {
                logger.debug("Remote Connection Parameter Request for handle 0x\(hex(handle)) ignored (no such connection, or a reply is on its way)")
                return
            }
            clock.task { [self] in
                defer { _ = state.withLockedValue { $0.parameterReplies.remove(handle) } }
                if parameters.isValid {
                    _ = await runOptional(.leRemoteConnectionParameterRequestReply(handle: handle, parameters: parameters))
                } else {
                    var p: [UInt8] = []
                    p.appendLE(handle)
                    p.append(HCIStatus.unacceptableConnectionParameters.rawValue)
                    _ = await runOptional(HCICommand(opcode: 0x2021, parameters: p))
                }
            }
        case .dataLengthChange(let handle, let txOctets, _, let rxOctets, _):
            if let connection = state.withLockedValue({ $0.connections[handle] }) {
                connection.update { $0.maxTxOctets = Int(txOctets); $0.maxRxOctets = Int(rxOctets) }
            }
            logger.info("connection 0x\(hex(handle)) data length: tx \(txOctets), rx \(rxOctets) bytes")
        case .phyUpdateComplete(let status, let handle, let tx, let rx):
            if status == .success, let connection = state.withLockedValue({ $0.connections[handle] }) {
                connection.update { $0.txPHY = tx; $0.rxPHY = rx }
            }
            logger.info("connection 0x\(hex(handle)) PHY: tx \(tx), rx \(rx) (\(status))")
        case .remoteFeaturesComplete(let status, let handle, let features):
            logger.debug("connection 0x\(hex(handle)) peer features 0x\(hex(features)) (\(status))")
        case .unknown(let subevent, _):
            logger.debug("LE subevent 0x\(hex(subevent)) ignored")
        }
    }

    // MARK: ACL data

    /// Joins a fragment into its PDU and hands a whole PDU to its connection.
    func receive(_ packet: ACLDataPacket) async {
        var outputs: [L2CAPReassemblyEvent] = []
        state.withLockedValue { s in s.reassembler.append(packet) { outputs.append($0) } }
        for output in outputs {
            switch output {
            case .dropped(let error):
                logger.notice("\(error)")
            case .pdu(let handle, let pdu):
                guard let connection = state.withLockedValue({ $0.connections[handle] }) else { continue }
                await connection.receive(pdu)
            }
        }
    }

    // MARK: ACL credits

    /// Waits for an ACL buffer for a fragment on `connection`; fails once that connection has
    /// ended, even when a new connection has the same handle by then.
    func takeCredit(for connection: LEConnection) async throws(LEHostError) {
        let handle = connection.handle
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, LEHostError>, Never>) in
            let now = state.withLockedValue { s -> Result<Void, LEHostError>? in
                if let reason = s.closedReason { return .failure(.closed(reason)) }
                guard s.connections[handle] === connection else { return .failure(.disconnected("connection 0x\(hex(handle)) ended")) }
                if s.creditWaiters.isEmpty, s.credits.take(for: handle) { return .success(()) }
                s.creditWaiters.append(CreditWaiter(handle: handle, connection: ObjectIdentifier(connection), continuation: continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        try result.get()
    }

    /// Hands free buffers to waiting senders, in order.
    func grantCredits() {
        let granted = state.withLockedValue { s -> [CreditWaiter] in
            var granted: [CreditWaiter] = []
            while let first = s.creditWaiters.first, s.credits.take(for: first.handle) {
                granted.append(s.creditWaiters.removeFirst())
            }
            return granted
        }
        for waiter in granted { waiter.continuation.resume(returning: .success(())) }
    }

    // MARK: Ends

    /// A connection ended: its buffers come back, its PDU in progress is dropped, its bearer closes.
    /// With `only`, nothing happens unless that connection is still the one on `handle`.
    func connectionEnded(handle: UInt16, reason: HCIStatus, only expected: LEConnection? = nil) {
        let (connection, waiters) = state.withLockedValue { s -> (LEConnection?, [CreditWaiter]) in
            guard let current = s.connections[handle], expected == nil || current === expected else { return (nil, []) }
            guard let connection = s.connections.removeValue(forKey: handle) else { return (nil, []) }
            s.reassembler.close(handle: handle)
            s.credits.release(handle: handle)
            let ended = ObjectIdentifier(connection)
            let waiters = s.creditWaiters.filter { $0.connection == ended }
            s.creditWaiters.removeAll { $0.connection == ended }
            return (connection, waiters)
        }
        for waiter in waiters { waiter.continuation.resume(returning: .failure(.disconnected(reason.description))) }
        grantCredits()
        if let connection {
            logger.info("disconnected from \(connection.peer): \(reason)")
            connection.ended(reason.description)
        }
    }

    /// Stops the host: every waiter fails with `reason`, every connection's bearer closes.
    func shutDown(_ reason: String) {
        let taken = state.withLockedValue { s -> (Pending<[UInt8]>?, [Pending<LEConnection>], ScanSession?, [CreditWaiter], [LEConnection])? in
            guard s.closedReason == nil else { return nil }
            s.closedReason = reason
            defer {
                s.command = nil
                s.connect = nil
                s.advertising = nil
                s.scan = nil
                s.creditWaiters = []
                s.connections = [:]
            }
            return (s.command, [s.connect, s.advertising].compactMap { $0 }, s.scan, s.creditWaiters, Array(s.connections.values))
        }
        guard let (command, connectionWaits, scan, waiters, connections) = taken else { return }
        logger.debug("LE host stopped: \(reason)")
        command?.continuation?.resume(returning: .failure(.closed(reason)))
        for wait in connectionWaits { wait.continuation?.resume(returning: .failure(.closed(reason))) }
        scan?.continuation?.resume()
        for waiter in waiters { waiter.continuation.resume(returning: .failure(.closed(reason))) }
        for connection in connections { connection.ended(reason) }
    }
}
