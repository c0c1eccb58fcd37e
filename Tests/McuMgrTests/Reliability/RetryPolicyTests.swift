import McuMgr
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// Every command has a retry policy by its nature (reliability issue, defect 3): reads and
/// idempotent writes are resent after a timeout, reset, erase, storage erase, log clear and
/// shell commands never are. Before the fix, the session resent every request alike.
@Suite("Reliability: retry policies by the nature of each command", .virtualTime, .scaledTimeLimit(minutes: 2))
struct RetryPolicyTests {
    /// A request, and whether the session may resend it.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let resent: Bool
        let send: @Sendable (SMPClient) async throws(SMPError) -> Void
        var testDescription: String { name }

        init<Request: SMPRequest>(_ request: Request, resent: Bool) {
            name = "\(Request.self)"
            self.resent = resent
            send = { client throws(SMPError) in _ = try await client.send(request) }
        }
    }

    static let hash = [UInt8](repeating: 0x11, count: 32)

    static let cases: [Case] = [
        Case(ResetRequest(), resent: false),
        Case(ImageEraseRequest(slot: 1), resent: false),
        Case(StorageErase(), resent: false),
        Case(ShellExecuteRequest(argv: ["reboot"]), resent: false),
        Case(LogClear(), resent: false),
        Case(ImageStateRead(), resent: true),
        Case(ImageStateWriteRequest(hash: hash, confirm: false), resent: true),
        Case(ImageStateWriteRequest(hash: hash, confirm: true), resent: true),
        Case(SettingsWriteRequest(name: "app/x", value: [1]), resent: true),
        Case(EchoRequest(text: "hi"), resent: true),
        Case(FileDownloadRequest(name: "/lfs1/x", offset: 0), resent: true),
        Case(SMPDeviceBuffersRead(), resent: true),
    ]

    @Test("a request to a device that never answers is sent once, or 1 + retries times", arguments: cases)
    func silentDevice(_ request: Case) async throws {
        let clock = VirtualRuntime.currentClock
        let transport = LoopbackTransport()
        let device = await ScriptedDevice.started(transport, clock: clock) { _, _ in .ignore }
        let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(1), retries: 3), clock: clock)
        do throws(SMPError) {
            try await request.send(client)
            Issue.record("a silent device answered")
        } catch {
            guard case .timeout(_, _, let attempts) = error else {
                Issue.record("expected a timeout, got \(error)")
                await client.close()
                return
            }
            #expect(attempts == (request.resent ? 4 : 1))
        }
        #expect(await device.received.count == (request.resent ? 4 : 1))
        await client.close()
    }
}
