import ArgumentParser
import Logging
import SMPSimulator
import SMPUDP

/// `mcumgr-sim --devices N`: many independent devices in one process, each on its own UDP
/// address (or port), each with its own flash, state, seed and faults.
extension MCUmgrSim {
    /// The most devices one simulator serves.
    static let maximumDevices = 1024

    func validateFleet() throws {
        guard let deviceCount else {
            guard faulty == 0, deviceFaults.isEmpty, !consecutivePorts else {
                throw ValidationError("--faulty, --device-fault and --consecutive-ports need --devices N")
            }
            return
        }
        guard (1...Self.maximumDevices).contains(deviceCount) else { throw ValidationError("--devices must be 1 to \(Self.maximumDevices)") }
        guard endpoints.count <= 1 else { throw ValidationError("--devices takes one --udp address, the first device's") }
        guard serial == nil, peripheral.hci == nil else { throw ValidationError("--devices serves UDP only, not --serial or --hci") }
        guard (0...deviceCount).contains(faulty) else { throw ValidationError("--faulty must be 0 to --devices (\(deviceCount))") }
        _ = try explicitFaults()
        let first = firstEndpoint
        if consecutivePorts {
            guard first.port != 0 else { throw ValidationError("--consecutive-ports needs a port in --udp, not 0") }
            guard first.port + deviceCount - 1 <= 65_535 else { throw ValidationError("the ports would pass 65535") }
        } else {
            guard let address = IPv4Address(first.host) else {
                throw ValidationError("--devices without --consecutive-ports needs an IPv4 address in --udp, not '\(first.host)'")
            }
            guard address.advanced(by: deviceCount - 1) != nil else { throw ValidationError("the addresses would pass 255.255.255.255") }
        }
    }

    /// The `--device-fault N=KIND` assignments, by device index.
    func explicitFaults() throws -> [Int: SimulatorFault] {
        var faults: [Int: SimulatorFault] = [:]
        for text in deviceFaults {
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let index = Int(parts[0]), (0..<(deviceCount ?? 0)).contains(index),
                  let fault = SimulatorFault(rawValue: String(parts[1]))
            else {
                throw ValidationError("--device-fault expects N=FAULT with N a device (0 to \((deviceCount ?? 1) - 1)) and FAULT one of \(SimulatorFault.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            faults[index] = fault
        }
        return faults
    }

    /// The first device's address: --udp's, else 127.0.0.1:1337.
    var firstEndpoint: UDPEndpoint { endpoints.first ?? UDPEndpoint(host: "127.0.0.1", port: UDPTransport.defaultPort) }

    /// The address of device `index`.
    func endpoint(of index: Int) -> UDPEndpoint {
        let first = firstEndpoint
        if consecutivePorts { return UDPEndpoint(host: first.host, port: first.port + index) }
        return UDPEndpoint(host: IPv4Address(first.host)!.advanced(by: index)!.description, port: first.port)
    }

    /// Serves `count` devices until a stop signal, then prints what each device received.
    func serveFleet(count: Int) async throws {
        let plan = SimulatorFaultPlan(count: count, faulty: faulty, seed: seed, explicit: try explicitFaults())
        let parameters = SimulatorFaultParameters()
        var devices: [SimulatedDevice] = []
        var servers: [SimulatorUDPServer] = []
        var lines: [String] = []
        for index in 0..<count {
            var configuration = deviceConfiguration()
            var faults = faultConfiguration()
            faults.seed = seed &+ UInt64(index)
            plan[index]?.apply(to: &configuration, faults: &faults, parameters: parameters)
            var logger = Logger(label: "mcumgr-sim")
            logger[metadataKey: "device"] = "\(index)"
            let device = SimulatedDevice(configuration: configuration, link: linkConfiguration(), faults: faults, clock: deviceClock, logger: logger)
            await device.installRunningImages(version: imageVersion, payloadSize: imageSize)
            if let secondary {
                let bytes = MCUbootImageMaker.make(version: secondaryVersion, payloadSize: imageSize, seed: 0x5ec0_0d)
                await device.install(bytes, image: 0, slot: 1, mark: secondary.mark)
            }
            let endpoint = endpoint(of: index)
            do {
                let server = try await SimulatorUDPServer.start(device: device, host: endpoint.host, port: endpoint.port)
                servers.append(server)
                let bound = UDPEndpoint(host: endpoint.host, port: server.port)
                lines.append("device \(index): listening on \(bound)" + (plan[index].map { ", fault: \($0) (\($0.summary(parameters)))" } ?? ""))
            } catch {
                for server in servers { await server.close() }
                throw BindError(endpoint: endpoint, underlying: "\(error)")
            }
            devices.append(device)
        }
        Console.write(lines.joined(separator: "\n"), to: 1)
        let reason = await StopWaiter.wait(watchesStandardInput: exitOnEndOfInput)
        Console.write("mcumgr-sim: \(reason), stopping", to: 2)
        for server in servers { await server.close() }
        var counts: [String] = []
        for (index, device) in devices.enumerated() {
            let uploads = await device.requestLog.filter { $0.group == 1 && $0.command == 1 }.count
            counts.append("device \(index): \(await device.packetsReceived) packets received, \(uploads) upload requests, \(await device.bootCount) boots")
        }
        Console.write(counts.joined(separator: "\n"), to: 1)
    }
}
