import CBOR
import SMP

/// The shell group, 9: runs a shell command line on the device and returns what it printed.
public struct ShellManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Runs `argv` in the device's shell and returns its output and return code. Never resent:
    /// a command must not run twice because an answer was lost.
    ///
    /// An unknown command is not a device error: it is a result with a negative return code and
    /// the shell's message as output. Older Zephyr answers `{"o": …, "rc": n}` with the command's
    /// return code in `rc`; that form is read as a result too.
    public func execute(_ argv: [String]) async throws(SMPError) -> ShellResult {
        typealias Request = ShellExecuteRequest
        let payload: CBORValue
        do {
            payload = try CBOREncoder().encodeValue(Request(argv: argv))
        } catch {
            throw .invalidRequest("shell command: \(error)")
        }
        let response = try await client.exchange(
            Request.operation, group: Request.group, command: Request.command, payload: payload, retryPolicy: Request.retryPolicy
        )
        if response["err"] == nil, response["ret"] == nil, let output = response["o"]?.textValue, let rc = response["rc"]?.intValue {
            return ShellResult(output: output, returnCode: rc)
        }
        if let error = try SMPDeviceError(response: response) { throw .device(error) }
        do {
            return try CBORDecoder().decode(ShellResult.self, from: response)
        } catch {
            throw .invalidResponse("shell command: \(error) in \(response)")
        }
    }
}
