import CBOR
import SMP
import SMPTestSupport

extension ScriptedDevice {
    /// A device answering every request with `script` as a default Zephyr build encodes it
    /// (indefinite lengths), a client on it (1 s timeout, no retries), on the test's clock.
    static func with(
        version: SMPVersion = .v2, indefinite: Bool = true,
        script: @escaping @Sendable (_ header: SMPHeader, _ request: CBORValue) -> CBORValue,
        _ body: (SMPClient) async throws -> Void
    ) async throws {
        try await withClient(clock: VirtualRuntime.currentClock, responseVersion: version, indefinite: indefinite, script: script, body)
    }
}

extension CBORValue {
    /// A text-keyed map, in order.
    static func fields(_ entries: [(String, CBORValue)]) -> CBORValue {
        .map(entries.map { (key: .text($0.0), value: $0.1) })
    }
}
