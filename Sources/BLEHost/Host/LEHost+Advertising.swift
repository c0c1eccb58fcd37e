extension LEHost {
    /// Advertises until a central connects, and returns that connection (peripheral role): its
    /// ``LEConnection/attBearer`` carries the central's ATT requests to a GATT server.
    ///
    /// The controller stops advertising once a central connects; call again for the next
    /// connection. Cancelling the calling task stops advertising and throws
    /// ``LEHostError/cancelled(_:)``. One advertising set at a time: a second call while one waits
    /// throws ``LEHostError/busy(_:)``.
    public func accept(advertising advertisement: LEAdvertisement) async throws(LEHostError) -> LEConnection {
        guard advertisement.isValid else {
            throw .invalidParameters("invalid advertisement: \(advertisement.data.bytes.count) and \(advertisement.scanResponse.bytes.count) bytes of data, interval \(advertisement.minimumInterval)-\(advertisement.maximumInterval)")
        }
        let id = try state.withLockedValue { s -> Result<Int, LEHostError> in
            if let reason = s.closedReason { return .failure(.closed(reason)) }
            guard s.info != nil else { return .failure(.closed("the host has not been started")) }
            guard s.advertising == nil else { return .failure(.busy("the host is already advertising")) }
            let id = s.makeID()
            s.advertising = Pending(id: id)
            return .success(id)
        }.get()
        // An optional command still waiting (the last connection's PHY request) need not hold the controller up.
        abandonOptionalCommand()
        do {
            try await run(.leSetAdvertisingParameters(
                minimumInterval: advertisement.minimumInterval, maximumInterval: advertisement.maximumInterval, ownAddress: .random))
            try await run(.leSetAdvertisingData(advertisement.data))
            try await run(.leSetScanResponseData(advertisement.scanResponse))
            try await run(.leSetAdvertisingEnable(true))
        } catch {
            state.withLockedValue { s in if s.advertising?.id == id { s.advertising = nil } }
            throw error
        }
        logger.info("advertising as \(address)")
        let result = await withTaskCancellationHandler {
            await awaitResult(of: id, at: \.advertising, abandoned: "advertising was abandoned")
        } onCancel: {
            complete(id, at: \.advertising, with: .failure(.cancelled("advertising was stopped")))
        }
        switch result {
        case .success(let connection):
            logger.info("\(connection.peer) connected (handle 0x\(hex(connection.handle)))")
            clock.task { [self] in await tune(connection) }
            return connection
        case .failure(let error):
            if !isClosed { _ = await runOptional(.leSetAdvertisingEnable(false)) }
            throw error
        }
    }
}
