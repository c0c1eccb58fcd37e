import NIOConcurrencyHelpers

extension LEHost {
    /// Connects to `peer` (its address type must be right: scan first when it is unknown) with
    /// `parameters` (the configuration's by default), giving up after `timeout`.
    ///
    /// After the connection is made the host asks, in the background, for 251-byte link-layer
    /// payloads and the 2M PHY when the controller supports them, and carries on without them when
    /// the controller refuses or never answers.
    public func connect(
        to peer: LEAddress, parameters: LEConnectionParameters? = nil, timeout: Duration? = nil
    ) async throws(LEHostError) -> LEConnection {
        let parameters = parameters ?? configuration.connectionParameters
        guard parameters.isValid else { throw .invalidParameters("invalid connection parameters \(parameters)") }
        let limit = timeout ?? configuration.connectTimeout
        await procedureGate.enter()
        defer { procedureGate.leave() }
        let id = try state.withLockedValue { s -> Result<Int, LEHostError> in
            if let reason = s.closedReason { return .failure(.closed(reason)) }
            guard s.info != nil else { return .failure(.closed("the host has not been started")) }
            guard s.connections.count < configuration.maximumConnections else {
                return .failure(.busy("the LE host already keeps \(s.connections.count) connections, its most"))
            }
            let id = s.makeID()
            s.connect = Pending(id: id)
            s.connectPeer = peer
            return .success(id)
        }.get()
        logger.debug("connecting to \(peer)")
        do {
            try await run(.leCreateConnection(peer: peer, ownAddress: .random, parameters: parameters))
        } catch {
            state.withLockedValue { s in if s.connect?.id == id { s.connect = nil } }
            throw error
        }
        let timer = clock.task { [self] in
            do { try await clock.sleep(for: limit) } catch { return }
            completeConnect(id: id, .failure(.connectTimeout(peer: peer.description, after: limit)))
        }
        let result = await awaitResult(of: id, at: \.connect, abandoned: "the connection attempt was abandoned")
        timer.cancel()
        switch result {
        case .success(let connection):
            logger.info("connected to \(peer) (handle 0x\(hex(connection.handle)))")
            clock.task { [self] in await tune(connection) }
            return connection
        case .failure(let error):
            if case .connectTimeout = error {
                // A completion that still arrives finds no attempt waiting and is disconnected.
                _ = await runOptional(.leCreateConnectionCancel)
            }
            throw error
        }
    }

    /// LE Connection Complete: a connection an attempt (or advertising) waits for is registered
    /// before any of its data is read, then handed to the waiter. Any other — nobody asked for it,
    /// its attempt gave up, its handle is taken, the host is full — is never registered and costs
    /// no task: its handle goes to the stray reaper, which disconnects it at a bounded rate.
    func connectionCompleted(_ complete: LEConnectionComplete) {
        guard complete.status == .success else {
            let id = state.withLockedValue { s in s.connect.flatMap { $0.result == nil ? $0.id : nil } }
            if let id {
                let peer = state.withLockedValue { $0.connectPeer?.description } ?? complete.peer.description
                completeConnect(id: id, .failure(.connectFailed(peer: peer, status: complete.status)))
            } else {
                logger.debug("LE Connection Complete with \(complete.status) and no attempt waiting")
            }
            return
        }
        // As central it answers a connection attempt; as peripheral, advertising.
        let slot: WritableKeyPath<HostState, Pending<LEConnection>?> = complete.isCentral ? \.connect : \.advertising
        let limit = configuration.maximumConnections
        let accepted = state.withLockedValue { s -> (LEConnection, Int)? in
            guard let pending = s[keyPath: slot], pending.result == nil else { return nil }
            guard s.connections[complete.handle] == nil, s.connections.count < limit else { return nil }
            // As central, only the peer asked for (a controller may report any completion while an attempt waits).
            if complete.isCentral, let asked = s.connectPeer, asked.bytes != complete.peer.bytes { return nil }
            let connection = LEConnection(host: self, complete: complete, attMTU: max(23, configuration.attMTU))
            s.connections[complete.handle] = connection
            s.reassembler.open(handle: complete.handle)
            return (connection, pending.id)
        }
        if let accepted {
            let (connection, id) = accepted
            if self.complete(id, at: slot, with: .success(connection)) { return }
            // The attempt gave up between the two locks.
            connectionEnded(handle: complete.handle, reason: .localHostTerminated, only: connection)
        }
        strayed(complete)
    }

    /// A connection nobody waits for: queued for the reaper, unless its handle is one the host
    /// keeps (a controller reporting a live handle twice) or the queue is full.
    private func strayed(_ complete: LEConnectionComplete) {
        let handle = complete.handle
        let (count, queued, startReaper) = state.withLockedValue { s -> (Int, Bool, Bool) in
            s.strayCount += 1
            guard s.closedReason == nil, s.connections[handle] == nil, s.strays.count < Self.strayCapacity, !s.strays.contains(handle) else {
                s.straysIgnored += 1
                return (s.strayCount, false, false)
            }
            s.strays.append(handle)
            let start = !s.reaping
            s.reaping = true
            return (s.strayCount, true, start)
        }
        // A flood is logged at its first event and then at each power of two, not event by event.
        if count & (count - 1) == 0 {
            let waiter = complete.isCentral ? "no connection attempt waiting" : "no advertising waiting"
            logger.notice(
                "a connection with \(complete.peer) (handle 0x\(hex(handle))) completed with \(waiter); \(count) such so far, disconnected at most \(Self.strayDisconnectRate) a second\(queued ? "" : " (this one left alone)")")
        }
        if startReaper { clock.task { [self] in await reapStrays() } }
    }

    /// Disconnects the queued strays one at a time, at most ``strayDisconnectRate`` a second, and
    /// ends when the queue is empty (the next stray starts it again).
    private func reapStrays() async {
        let pause = Duration.seconds(1) / Self.strayDisconnectRate
        while true {
            let next = state.withLockedValue { s -> UInt16? in
                guard s.closedReason == nil, let handle = s.strays.popFirst() else {
                    s.reaping = false
                    return nil
                }
                return handle
            }
            guard let handle = next else { return }
            // A handle the host keeps by now (the controller reused it for a connection asked for) stays.
            if state.withLockedValue({ $0.connections[handle] }) == nil {
                _ = await runOptional(.disconnect(handle: handle, reason: .remoteUserTerminated))
            }
            do {
                try await clock.sleep(for: pause)
            } catch {
                state.withLockedValue { $0.reaping = false }
                return
            }
        }
    }

    /// Completes the connection attempt `id`; a connection that arrives after its attempt gave up is disconnected.
    func completeConnect(id: Int, _ result: Result<LEConnection, LEHostError>) {
        if !complete(id, at: \.connect, with: result), case .success(let connection) = result {
            clock.task { await connection.disconnect() }
        }
    }

    /// Asks for Data Length Extension and the 2M PHY where the controller has them (either role may); never fails.
    func tune(_ connection: LEConnection) async {
        guard let features = controller?.features else { return }
        if configuration.requestDataLength, features.contains(.dataLengthExtension) {
            _ = await runOptional(.leSetDataLength(handle: connection.handle, txOctets: 251, txTime: 2120))
        }
        if configuration.request2MPHY, features.contains(.phy2M), !connection.isEnded {
            _ = await runOptional(.leSetPHY2M(handle: connection.handle))
        }
    }
}
