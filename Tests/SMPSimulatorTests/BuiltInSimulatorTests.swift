import CBOR
import SMP
import SMPSimulator
import Testing

/// The device behind `mcumgr --sim`, as `mcumgr` registers it with its connection factory.
@Suite("Built-in simulator")
struct BuiltInSimulatorTests {
    @Test("a fresh device in memory: both images run the running version from slot 0, confirmed; the packet size is the one asked for")
    func fresh() async throws {
        let transport = await BuiltInSimulator.makeTransport(maximumPacketSize: 256)
        try await transport.connect()
        #expect(transport.maximumPacketSize == 256)
        let client = SMPClient(transport: transport)
        let state = try await client.request(.read, group: .image, command: 0, payload: .map([]), retryPolicy: .resend)
        await client.close()
        let running = (state["images"]?.arrayValue ?? []).filter { $0["slot"]?.intValue == 0 }
        #expect(running.map { $0["image"]?.intValue ?? 0 }.sorted() == [0, 1])
        #expect(running.allSatisfy {
            $0["version"]?.textValue == BuiltInSimulator.runningVersion.description && $0["active"]?.boolValue == true
                && $0["confirmed"]?.boolValue == true
        })
    }
}
