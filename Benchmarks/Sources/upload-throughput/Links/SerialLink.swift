import Foundation
import SMP
import SMPSerial
import SMPTestSupport

/// A serial line: `mcumgr-sim --serial --baud B` on a pseudo-terminal, Zephyr's console framing
/// (base64 in 127-byte lines), the simulator pacing both directions at baud/10 bytes/s.
struct SerialLink: BenchLink {
    let baud: Int
    let buffers: DeviceBuffers
    let slotSize: Int

    var family: String { "serial" }
    var label: String { "serial \(baud) baud" }
    /// Console framing: the device's buffer holds the packet with its length and CRC.
    var packetSize: Int { SerialConnectionOptions.packetSize(forDeviceBufferSize: buffers.size, framing: .console) }

    func start() async throws -> any LinkSession {
        let process = try await SimulatorProcess.start(
            ["--serial", "--baud", "\(baud)", "--buf-size", "\(buffers.size)", "--buf-count", "\(buffers.count)", "--slot-size", "\(slotSize)"])
        let clock = SMPClock.continuous
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline {
            if let line = process.stdout.split(separator: "\n").first(where: { $0.hasPrefix("serial: ") }) {
                return SerialSession(process: process, path: String(line.dropFirst("serial: ".count)), baud: baud)
            }
            try await clock.sleep(for: .milliseconds(10))
        }
        await process.stopAndWait()
        throw BenchError("mcumgr-sim --serial did not print its pty")
    }

    /// Each request packet crosses the line as console frames; its answer comes back the same way.
    /// The line carries baud/10 bytes/s each way (8N1); a window of requests shares one round trip.
    func limit(window: Int, chunk: Int, packet: Int) -> Double? {
        guard let encoder = try? ConsoleFrameEncoder() else { return nil }
        let bytesPerSecond = Double(baud) / 10
        let requestWire = Double(encoder.encodedSize(ofPacket: packet))
        let responseWire = Double(encoder.encodedSize(ofPacket: SMPHeader.size + 12))
        let bandwidth = bytesPerSecond * Double(chunk) / requestWire
        let roundTrip = (requestWire + responseWire) / bytesPerSecond
        return min(bandwidth, Double(min(window, buffers.count) * chunk) / roundTrip)
    }
}

struct SerialSession: LinkSession {
    let process: SimulatorProcess
    let path: String
    let baud: Int

    var address: LinkAddress { .serial(path: path, baud: baud) }

    func makeTransport() async throws -> any SMPTransport {
        try SerialTransport(options: SerialConnectionOptions(path: path, baudRate: baud, framing: .console))
    }

    func stop() async {
        await process.stopAndWait()
    }
}
