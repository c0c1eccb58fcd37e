import CBOR

extension SMPClient {
    /// Sends a typed request and returns its typed answer: the way to send any command that has a
    /// request type (every manager does).
    ///
    /// A device error (`err` or a non-zero `rc`) throws `SMPError.device`; a malformed status or a
    /// missing required field throws `SMPError.invalidResponse` naming it. A busy or out-of-memory
    /// answer is retried with back-off within the request's deadline.
    public func send<Request: SMPRequest>(_ request: Request, options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> Request.Response {
        let payload: [UInt8]
        do {
            payload = try CBOREncoder().encode(request)
        } catch {
            throw .invalidRequest("\(Request.self): \(error)")
        }
        let response = try await exchange(
            Request.operation, group: Request.group, command: Request.command, encodedPayload: payload,
            retryPolicy: Request.retryPolicy, options: options
        )
        if let error = try SMPDeviceError(response: response) { throw .device(error) }
        do {
            return try CBORDecoder().decode(Request.Response.self, from: response)
        } catch {
            throw .invalidResponse("\(Request.group) command \(Request.command): \(describe(decodingError: error)) in \(response)")
        }
    }

    /// Sends a CBOR map and returns the answer map; a device error throws `SMPError.device`: the
    /// way to send a command without a request type (application groups, raw tools, device tests).
    /// Reads are resent on timeouts and writes are not, unless `retryPolicy` says otherwise.
    public func request(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: CBORValue = .map([]),
        retryPolicy: SMPRetryPolicy? = nil, options: SMPRequestOptions = SMPRequestOptions()
    ) async throws(SMPError) -> CBORValue {
        let response = try await exchange(operation, group: group, command: command, payload: payload, retryPolicy: retryPolicy, options: options)
        if let error = try SMPDeviceError(response: response) { throw .device(error) }
        return response
    }

    /// Sends a CBOR map and returns the answer map as it came, error fields included (for
    /// commands whose errors carry data, such as the shell's older answer form). Reads are
    /// resent on timeouts and writes are not, unless `retryPolicy` says otherwise.
    package func exchange(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: CBORValue = .map([]),
        retryPolicy: SMPRetryPolicy? = nil, options: SMPRequestOptions = SMPRequestOptions()
    ) async throws(SMPError) -> CBORValue {
        try await exchange(
            operation, group: group, command: command, encodedPayload: CBORWriter().encode(payload),
            retryPolicy: retryPolicy ?? (operation == .read ? .resend : .doNotResend), options: options
        )
    }

    /// The shared path: send, decode the answer map, retry busy answers within the deadline, and
    /// fall back to SMP v1 once when the device refuses v2.
    private func exchange(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, encodedPayload bytes: [UInt8],
        retryPolicy: SMPRetryPolicy, options: SMPRequestOptions
    ) async throws(SMPError) -> CBORValue {
        let timeout = options.timeout ?? configuration.timeout
        let allowance = options.deadline ?? timeout * (max(options.retries ?? configuration.retries, 0) + 1)
        let deadline = clock.now + allowance
        var refusals = 0
        while true {
            var attempt = options
            if options.deadline != nil {
                // An explicit deadline bounds the resends too; otherwise the retry count does (a
                // timer that fires late on a loaded machine must not cost a resend).
                attempt.deadline = max(deadline - clock.now, .milliseconds(1))
            }
            let packet = try await transceive(operation, group: group, command: command, payload: bytes, retryPolicy: retryPolicy, options: attempt)
            let response: CBORValue
            do {
                response = try packet.decodedPayload()
            } catch {
                throw .invalidResponse("\(group) command \(command): \(error)")
            }
            guard case .map = response else {
                throw .invalidResponse("\(group) command \(command) answered \(response), not a map")
            }
            switch try SMPDeviceError(response: response) {
            case .status(.unsupportedTooNew, _)? where configuration.version == .v2:
                logger.info("the device refuses SMP v2; using v1")
                setVersion(.v1)
                continue
            default:
                refusals += 1
                guard let wait = backOffBeforeAskingAgain(after: response, refusals: refusals, deadline: deadline) else {
                    return response
                }
                do { try await clock.sleep(for: wait) } catch { throw .cancelled }
            }
        }
    }

    private func describe(decodingError error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing \"\(key.stringValue)\"" + path(context)
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.debugDescription + path(context)
        @unknown default:
            return "\(error)"
        }
    }

    private func path(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "" : " at " + context.codingPath.map(\.stringValue).joined(separator: ".")
    }
}
