import ArgumentParser
import Foundation
import Logging
import SMPSimulator
import SMPUDP

#if canImport(Glibc)
import Glibc
#endif

/// The devices' side of the benchmark, run as a child process (`--serve`) so that its CPU is not
/// counted as the client's: `count` simulated devices on consecutive addresses, each printed as
/// `device N HOST:PORT` once bound; it stops when its standard input closes.
enum DeviceServer {
    static func serve(count: Int, first: String, latency: Double, bufferCount: Int) async throws {
        var quiet = Logger(label: "fleet-benchmark-device")
        quiet.logLevel = .critical
        let parts = first.split(separator: ".").compactMap { UInt32($0) }
        guard parts.count == 4 else { throw ValidationError("--first-address must be an IPv4 address") }
        let base = parts.reduce(0) { $0 << 8 | $1 }
        var servers: [SimulatorUDPServer] = []
        var lines: [String] = []
        for index in 0..<count {
            var configuration = DeviceConfiguration()
            configuration.bufferCount = bufferCount
            configuration.imageCount = 1
            configuration.resetDelay = .milliseconds(50)
            configuration.bootDuration = .milliseconds(100)
            let device = SimulatedDevice(
                configuration: configuration, link: LinkConfiguration(latency: .microseconds(Int64(latency * 1000))), logger: quiet)
            await device.installRunningImages(version: ImageVersion(1, 0, 0), payloadSize: 16 * 1024)
            let address = base + UInt32(index)
            let host = [24, 16, 8, 0].map { String(address >> UInt32($0) & 0xff) }.joined(separator: ".")
            let server = try await SimulatorUDPServer.start(device: device, host: host, port: 0)
            servers.append(server)
            lines.append("device \(index) \(host):\(server.port)")
        }
        // One write, unbuffered: the parent reads the lines as soon as every device is bound.
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        var offset = 0
        while offset < text.count {
            let written = text[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if written <= 0 { break }
            offset += written
        }
        // Wait for the parent to close our standard input.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 64)
                while read(0, &buffer, buffer.count) > 0 {}
                continuation.resume()
            }
        }
        for server in servers { await server.close() }
    }
}

/// The child process serving the devices.
final class DeviceProcess: @unchecked Sendable {
    private let process: Process
    private let input: Pipe
    private let output: Pipe
    private var stopped = false

    private init(process: Process, input: Pipe, output: Pipe) {
        self.process = process
        self.input = input
        self.output = output
    }

    /// Starts this executable with `--serve`.
    static func start(count: Int, first: String, latency: Double, bufferCount: Int) throws -> DeviceProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = [
            "--serve", "--devices", "\(count)", "--first-address", first, "--latency", "\(latency)", "--buf-count", "\(bufferCount)",
        ]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        return DeviceProcess(process: process, input: input, output: output)
    }

    /// The devices' addresses, once all are bound.
    func endpoints() async throws -> [UDPEndpoint] {
        var text = ""
        var endpoints: [UDPEndpoint] = []
        let handle = output.fileHandleForReading
        while process.isRunning {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            endpoints = text.split(separator: "\n").compactMap { line in
                line.split(separator: " ").last.flatMap { UDPEndpoint(String($0)) }
            }
            if text.hasSuffix("\n"), !endpoints.isEmpty { break }
        }
        return endpoints
    }

    /// Closes the child's standard input and waits for it to end.
    func stop() {
        guard !stopped else { return }
        stopped = true
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
