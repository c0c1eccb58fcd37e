extension LEHost {
    /// Runs `command` and returns its return parameters (status byte first) once the controller
    /// answered with success; empty for a command answered by Command Status.
    @discardableResult
    func run(_ command: HCICommand, timeout: Duration? = nil, optional: Bool = false) async throws(LEHostError) -> [UInt8] {
        let limit = timeout ?? configuration.commandTimeout
        await commandGate.enter()
        defer { commandGate.leave() }
        let id = try state.withLockedValue { s -> Result<Int, LEHostError> in
            if let reason = s.closedReason { return .failure(.closed(reason)) }
            let id = s.makeID()
            s.command = Pending(id: id, opcode: command.opcode)
            s.command?.optional = optional
            return .success(id)
        }.get()
        logger.trace("→ \(command)")
        do {
            try await transport.send(command.packet)
        } catch {
            state.withLockedValue { s in if s.command?.id == id { s.command = nil } }
            throw .transport(error)
        }
        let timer = clock.task { [self] in
            do { try await clock.sleep(for: limit) } catch { return }
            completeCommand(id: id, .failure(.commandTimeout(command: command.description, after: limit)))
        }
        let result = await awaitResult(of: id, at: \.command, abandoned: "the command was abandoned")
        timer.cancel()
        return try result.get()
    }

    /// Runs a command the host can do without: a timeout or a refusal is logged and the host carries on.
    func runOptional(_ command: HCICommand) async -> Bool {
        do {
            try await run(command, timeout: configuration.optionalCommandTimeout, optional: true)
            return true
        } catch {
            logger.info("carrying on without \(command): \(error)")
            return false
        }
    }

    /// Stops waiting for an optional command's answer, so that a disconnect need not wait for it.
    func abandonOptionalCommand() {
        guard let (id, opcode) = state.withLockedValue({ s in s.command.flatMap { $0.optional && $0.result == nil ? ($0.id, $0.opcode) : nil } }) else { return }
        completeCommand(id: id, .failure(.commandTimeout(command: "\(HCICommand.name(of: opcode)) (abandoned)", after: .zero)))
    }

    /// Completes the pending command if it is `id` (a timer, or the host shutting down).
    func completeCommand(id: Int, _ result: Result<[UInt8], LEHostError>) {
        complete(id, at: \.command, with: result)
    }

    /// Completes the pending command if its opcode is `opcode` (an answer from the controller).
    func completeCommand(opcode: UInt16, _ result: Result<[UInt8], LEHostError>) {
        guard let id = state.withLockedValue({ s in s.command.flatMap { $0.opcode == opcode && $0.result == nil ? $0.id : nil } }) else {
            logger.debug("an answer to \(HCICommand.name(of: opcode)) that no command waits for; ignored")
            return
        }
        completeCommand(id: id, result)
    }
}
