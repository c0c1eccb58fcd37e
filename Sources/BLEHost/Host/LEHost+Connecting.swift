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

    /// LE Connection Complete: registers the connection before any of its data is read, then hands it to the waiter.
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
        let connection = LEConnection(host: self, complete: complete, attMTU: max(23, configuration.attMTU))
        // As central it answers a connection attempt; as peripheral, advertising.
        let slot: WritableKeyPath<HostState, Pending<LEConnection>?> = complete.isCentral ? \.connect : \.advertising
        let id = state.withLockedValue { s -> Int? in
            s.connections[complete.handle] = connection
            s.reassembler.open(handle: complete.handle)
            guard let pending = s[keyPath: slot], pending.result == nil else { return nil }
            return pending.id
        }
        guard let id, self.complete(id, at: slot, with: .success(connection)) else {
            let waiter = complete.isCentral ? "no attempt waiting (cancelled or timed out)" : "advertising stopped"
            logger.notice("a connection with \(complete.peer) completed with \(waiter); disconnecting it")
            clock.task { await connection.disconnect() }
            return
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
