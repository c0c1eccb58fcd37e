extension LEConnection {
    /// Asks the central for other connection parameters (an L2CAP Connection Parameter Update
    /// Request; peripheral role), as a Zephyr peripheral does a few seconds after connecting: true
    /// when the central accepted (it then changes the link itself, and ``current`` follows), false
    /// when it rejected them. Throws when this host is the central, when the parameters are
    /// invalid, when the connection ends, or when no answer comes within `timeout`.
    public func requestParameters(_ parameters: LEConnectionParameters, timeout: Duration = .seconds(30)) async throws(LEHostError) -> Bool {
        guard !isCentral else { throw .invalidParameters("only a peripheral asks its central for connection parameters") }
        guard parameters.isValid else { throw .invalidParameters("invalid connection parameters \(parameters)") }
        guard let identifier = signalRequests.register() else { throw .disconnected(current.endReason ?? "the connection ended") }
        let request = L2CAPSignal.connectionParameterUpdateRequest(identifier: identifier, parameters: parameters)
        do {
            try await send(L2CAPPDU(channel: L2CAPSignal.channel, payload: request.bytes))
        } catch {
            signalRequests.cancel(identifier)
            throw error
        }
        let clock = host.clock
        let timer = clock.task { [signalRequests] in
            do { try await clock.sleep(for: timeout) } catch { return }
            signalRequests.cancel(identifier)
        }
        let response = await signalRequests.wait(for: identifier)
        timer.cancel()
        guard let response else {
            if let reason = current.endReason { throw .disconnected(reason) }
            throw .commandTimeout(command: "Connection Parameter Update Request", after: timeout)
        }
        // Connection Parameter Update Response: result 0x0000 accepted, 0x0001 rejected; or a Command Reject.
        let accepted = response.code == 0x13 && response.data.count >= 2 && response.data[0] == 0 && response.data[1] == 0
        host.logger.info("connection parameters \(parameters.minimumInterval)-\(parameters.maximumInterval) (1.25 ms) asked of \(peer): \(accepted ? "accepted" : "rejected")")
        return accepted
    }
}
