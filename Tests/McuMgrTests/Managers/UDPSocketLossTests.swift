import McuMgr
import SMP
import SMPTestTraits
import SMPUDP
import Testing

@Suite("UDP socket closed under the transport")
struct UDPSocketLossTests {
    /// A datagram to the limited broadcast address from a socket without `SO_BROADCAST`: the
    /// kernel refuses every such send (EACCES), an error SwiftNIO does not pass over: it closes
    /// the socket, as it does when the route to a device's network disappears.
    static let refusedHost = "255.255.255.255"

    @Test("a send the host refuses closes the socket: the transport reports a disconnect and connect() opens a new one")
    func refusedSendReopensOnConnect() async throws {
        let transport = UDPTransport(host: Self.refusedHost, port: 9)
        try await guarded(cleanup: { await transport.close() }) {
            var events = transport.events.makeAsyncIterator()
            try await transport.connect()
            #expect(await events.next() == .connected)
            let firstFailure = try #require(await Self.sendFailure(transport))

            let event = await events.next()
            guard case .disconnected(let reason) = event else {
                Issue.record("expected a disconnect after the refused send, got \(String(describing: event))")
                return
            }
            #expect(reason.contains(Self.refusedHost))
            #expect(transport.localAddress == nil)
            await #expect(throws: SMPTransportError.notConnected) { try await transport.send(Self.echo) }

            try await transport.connect()
            #expect(await events.next() == .connected)
            #expect(transport.localAddress != nil)
            // The new socket reaches the kernel again: the same refusal, not SwiftNIO's closed channel.
            #expect(await Self.sendFailure(transport) == firstFailure)
        }
    }

    @Test("an upload to a host that refuses every send stalls on the kernel's refusal, each try from a new socket")
    func uploadRetriesOnNewSockets() async throws {
        let transport = UDPTransport(host: Self.refusedHost, port: 9)
        try await transport.connect()
        let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(60), retries: 0))
        let configuration = UploadConfiguration(pipelineDepth: 1, maximumFailuresWithoutProgress: 3, readsDeviceBuffers: false)
        try await guarded(cleanup: { await client.close() }) {
            do throws(UploadError) {
                try await ImageManager(client: client).upload(data: [UInt8](repeating: 0x5a, count: 4096), configuration: configuration)
                Issue.record("the upload went through")
            } catch {
                guard case .stalled(let offset, .transport(let last)) = error else {
                    Issue.record("expected a stall on a transport error, got \(error)")
                    return
                }
                #expect(offset == 0)
                // The last try ended on the kernel's refusal, or on the disconnect that the socket's
                // closing reports (whichever reached the session first); a dead socket kept for
                // the next try fails with SwiftNIO's closed channel instead.
                if case .disconnected(let reason) = last {
                    #expect(reason.contains("was closed after a send or receive error"))
                } else {
                    let fresh = UDPTransport(host: Self.refusedHost, port: 9)
                    try await fresh.connect()
                    let refusal = await Self.sendFailure(fresh)
                    await fresh.close()
                    #expect("\(last)" == refusal)
                }
            }
        }
    }

    /// An SMP echo request (OS group, command 0) with an empty map.
    static let echo: [UInt8] = [0x0a, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xa0]

    /// What the failed send of an echo said, or nil when it went out.
    static func sendFailure(_ transport: UDPTransport) async -> String? {
        do {
            try await transport.send(echo)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
