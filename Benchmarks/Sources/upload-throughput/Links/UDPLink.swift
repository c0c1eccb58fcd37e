import Foundation
import SMP
import SMPTestSupport
import SMPUDP

/// Loopback UDP to a release-built `mcumgr-sim` process that answers each request after
/// `latency` milliseconds. The device listens on port 1337 of an address of its own in
/// 127.0.0.0/8 (smpmgr cannot use another port).
struct UDPLink: BenchLink {
    let latency: Double
    let buffers: DeviceBuffers
    let slotSize: Int

    /// How long before each deadline the device stops sleeping (`mcumgr-sim --timer-spin`).
    static let timerSpinMicroseconds = 1000

    var family: String { "UDP" }
    var label: String { "UDP \(TextFormat.number(latency)) ms" + (buffers.count == 16 ? "" : ", buf_count \(buffers.count)") }
    var packetSize: Int { min(UDPTransport.defaultMaximumPacketSize, buffers.size) }

    func start() async throws -> any LinkSession {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let host = "127.13.\(Int.random(in: 1...254)).\(Int.random(in: 1...254))"
            do {
                // With a latency, the device keeps its event loop turning for the last millisecond
                // before each answer is due: an idle VM wakes 0.2–0.5 ms late, which would add
                // 5–10 % to a 5 ms round trip that the link's limit does not have.
                let spin = latency > 0 ? ["--timer-spin", "\(Self.timerSpinMicroseconds)"] : []
                let process = try await SimulatorProcess.start(
                    ["--latency", TextFormat.number(latency), "--buf-size", "\(buffers.size)", "--buf-count", "\(buffers.count)",
                     "--slot-size", "\(slotSize)"] + spin,
                    endpoint: "\(host):1337")
                return UDPSession(process: process, packetSize: packetSize)
            } catch {
                lastError = error
            }
        }
        throw BenchError("mcumgr-sim did not start: \(lastError.map { "\($0)" } ?? "")")
    }

    /// With `latency` per answer, `window` chunks per round trip; loopback itself is not the limit.
    func limit(window: Int, chunk: Int, packet: Int) -> Double? {
        guard latency > 0 else { return nil }
        return Double(min(window, buffers.count) * chunk) / (latency / 1000)
    }
}

struct UDPSession: LinkSession {
    let process: SimulatorProcess
    let packetSize: Int

    var address: LinkAddress { .udp(host: process.host, port: process.port) }

    func makeTransport() async throws -> any SMPTransport {
        UDPTransport(host: process.host, port: process.port, maximumPacketSize: packetSize)
    }

    func stop() async {
        await process.stopAndWait()
    }
}
