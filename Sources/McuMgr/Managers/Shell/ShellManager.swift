import CBOR
import SMP

/// The shell group, 9: run a shell command line on the device and capture its output.
///
/// A command that fails on the device is not an SMP error: it comes back as a `ShellResult`
/// with a non-zero `returnCode` (and the shell's text in `output`). SMP errors (e.g.
/// `SHELL_MGMT_ERR_EMPTY_COMMAND`) are thrown as `SMPError.device(.shell(...))`.
public struct ShellManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Runs `argv` (command and arguments) and returns its output and return value.
    ///
    /// Devices built with `CONFIG_MCUMGR_GRP_SHELL_LEGACY_RC_RETURN_CODE` send the return value as
    /// `rc`, the key SMP uses for its own status. A response holding the output `o` and an `rc`
    /// but no `ret` and no `err` is read as such a legacy answer (an SMP error carries no output),
    /// so a failing command's code lands in `returnCode` instead of being thrown as an SMP status.
    public func execute(_ argv: [String]) async throws -> ShellResult {
        let payload = try CBOREncoder().encodeValue(ShellExecuteRequest(argv: argv))
        let packet = try await client.transceive(.write, group: .shell, command: Command.execute, payload: CBORWriter().encode(payload))
        var response: CBORValue
        do {
            response = try packet.decodedPayload()
        } catch {
            throw SMPError.invalidResponse("shell command 0: \(error)")
        }
        if response["err"] == nil, response["ret"] == nil, let output = response["o"]?.textValue, let rc = response["rc"]?.intValue {
            return ShellResult(output: output, returnCode: rc)
        }
        switch SMPDeviceError(response: response) {
        case .status(.unsupportedTooNew, _)?:
            // The client's own request path falls back to SMP v1 and asks again.
            response = try await client.request(.write, group: .shell, command: Command.execute, payload: payload)
        case let error?:
            throw SMPError.device(error)
        case nil:
            break
        }
        do {
            return try CBORDecoder().decode(ShellResult.self, from: response)
        } catch {
            throw SMPError.invalidResponse("shell command 0: \(error) in \(response)")
        }
    }

    private enum Command {
        static let execute: UInt8 = 0
    }
}
