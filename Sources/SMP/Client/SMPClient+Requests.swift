import CBOR

extension SMPClient {
    /// Sends a CBOR request and returns the response map; a device error (`err` or non-zero `rc`) throws `SMPError.device`.
    public func request(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: CBORValue = .map([]),
        timeout: Duration? = nil, retries: Int? = nil
    ) async throws -> CBORValue {
        let response = try await exchange(operation, group: group, command: command, payload: payload, timeout: timeout, retries: retries)
        if let error = SMPDeviceError(response: response) {
            throw SMPError.device(error)
        }
        return response
    }

    /// Sends a CBOR request and returns the response map as it came, error fields included
    /// (for commands whose errors carry data, such as a file upload's expected offset).
    ///
    /// If the device refuses SMP v2 (`MGMT_ERR_UNSUPPORTED_TOO_NEW`), the session switches to v1 and asks again.
    public func exchange(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: CBORValue = .map([]),
        timeout: Duration? = nil, retries: Int? = nil
    ) async throws -> CBORValue {
        let bytes = CBORWriter().encode(payload)
        let response = try await decodedResponse(operation, group, command, bytes, timeout, retries)
        if case .status(.unsupportedTooNew, _)? = SMPDeviceError(response: response), configuration.version == .v2 {
            setVersion(.v1)
            return try await decodedResponse(operation, group, command, bytes, timeout, retries)
        }
        return response
    }

    /// Sends a typed request and decodes the typed response (unknown response keys are ignored).
    public func request<Response: Decodable>(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, body: some Encodable,
        as type: Response.Type, timeout: Duration? = nil, retries: Int? = nil
    ) async throws -> Response {
        let payload: CBORValue
        do {
            payload = try CBOREncoder().encodeValue(body)
        } catch {
            throw SMPError.invalidRequest("\(error)")
        }
        let response = try await request(operation, group: group, command: command, payload: payload, timeout: timeout, retries: retries)
        do {
            return try CBORDecoder().decode(type, from: response)
        } catch {
            throw SMPError.invalidResponse("\(group) command \(command): \(describe(decodingError: error)) in \(response)")
        }
    }

    private func decodedResponse(
        _ operation: SMPOperation, _ group: SMPGroup, _ command: UInt8, _ bytes: [UInt8],
        _ timeout: Duration?, _ retries: Int?
    ) async throws -> CBORValue {
        let packet = try await transceive(operation, group: group, command: command, payload: bytes, timeout: timeout, retries: retries)
        do {
            let value = try packet.decodedPayload()
            guard case .map = value else {
                throw SMPError.invalidResponse("\(group) command \(command) answered \(value), not a map")
            }
            return value
        } catch let error as CBORDecodingError {
            throw SMPError.invalidResponse("\(group) command \(command): \(error)")
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
