import SMPTestSupport
import CBOR
import SMP

/// A device that answers each request with a canned CBOR map, encoded the way a default Zephyr
/// build does (indefinite-length maps and arrays): for responses the simulator does not produce,
/// such as the quirks of fielded devices.
final class ScriptedDevice: Sendable {
    typealias Script = @Sendable (_ header: SMPHeader, _ request: CBORValue) -> CBORValue

    let client: SMPClient
    private let task: Task<Void, Never>

    /// Starts answering with `script`; responses use SMP `version` in their header.
    init(version: SMPVersion = .v2, indefinite: Bool = true, script: @escaping Script) {
        let transport = LoopbackTransport()
        let device = transport.device
        let writer = CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: indefinite)
        task = Task {
            for await bytes in device.requests {
                guard let packet = try? SMPPacket(decoding: bytes), let request = try? packet.decodedPayload() else { continue }
                let payload = writer.encode(script(packet.header, request))
                var header = packet.header
                header.version = version
                header.operation = packet.header.operation.response
                guard let response = try? SMPPacket(header: header, payload: payload) else { continue }
                device.respond(response.bytes)
            }
        }
        client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(1), retries: 0))
    }

    func close() async {
        await client.close()
        task.cancel()
    }

    /// Runs `body` with a scripted device, then closes it.
    static func with(
        version: SMPVersion = .v2, indefinite: Bool = true, script: @escaping Script,
        _ body: (SMPClient) async throws -> Void
    ) async throws {
        let device = ScriptedDevice(version: version, indefinite: indefinite, script: script)
        do {
            try await body(device.client)
        } catch {
            await device.close()
            throw error
        }
        await device.close()
    }
}

extension CBORValue {
    /// A text-keyed map, in order.
    static func fields(_ entries: [(String, CBORValue)]) -> CBORValue {
        .map(entries.map { (key: .text($0.0), value: $0.1) })
    }
}
