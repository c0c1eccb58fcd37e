import Foundation
import SMP
import SMPSerial
import SMPSimulator
import Testing

import Glibc

/// A line that stops taking bytes (the other end no longer reads, or CTS holds) ends in a typed
/// disconnect within the write timeout, not in a send that never returns.
@Suite("Serial writes that stall")
struct SerialWriteTimeoutTests {
    @Test("a pty whose other end never reads: the send fails with a disconnect naming the stall")
    func stalledLine() async throws {
        // A pty nobody serves: the kernel buffers fill and then the writes block.
        let pty = try PseudoTerminal.open()
        defer {
            Glibc.close(pty.heldSlave)
            Glibc.close(pty.master)
        }
        let transport = try SerialTransport(options: SerialConnectionOptions(
            path: pty.slavePath, baudRate: 4_000_000, packetSize: 65_533, writeTimeout: .milliseconds(300)))
        var events = transport.events.makeAsyncIterator()
        try await transport.connect()
        #expect(await events.next() == .connected)
        var failure: SMPTransportError?
        for _ in 0..<64 {
            do {
                try await transport.send([UInt8](repeating: 0x41, count: 65_533))
            } catch {
                failure = error
                break
            }
        }
        guard case .disconnected(let reason)? = failure else {
            Issue.record("expected a disconnect, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("accepted no more bytes"))
        guard case .disconnected? = await events.next() else { Issue.record("no disconnect event"); return }
        await transport.close()
    }
}
