import GATT
import Logging
import NIOConcurrencyHelpers

extension HCIFuzzing {
    /// What ``hostSession(_:clock:elapsed:)`` makes the host do.
    public enum HostScenario: UInt8, Sendable, CaseIterable {
        /// A 1 s scan listing every device.
        case scan = 0
        /// A 1 s scan for a service and a name (the way `--ble NAME` finds a device).
        case find = 1
        /// A scan, a connection to the peer it found (or a fixed one), then a GATT exchange on its
        /// ATT channel: MTU exchange, service discovery, a read and a write.
        case connectAndGATT = 2
        /// The host advertises and waits for a central (the peripheral role).
        case accept = 3
    }

    /// The handle the controller gives the connection the host asks for.
    public static let requestedHandle: UInt16 = 0x0040

    /// Runs a whole ``LEHost`` against a controller that says what `data` says, in any order:
    /// events and ACL data arrive before, between and instead of the answers a plain controller
    /// gives (which follow them, so the host gets as far as the input lets it).
    ///
    /// `data`: a scenario byte (bits 0–1 a ``HostScenario``; bit 7 delivers each packet of the
    /// input 32 times, a flood), then an H4 byte stream from the controller. Before answering each
    /// command or ACL packet of the host, the controller delivers the input's next packets, up to
    /// and including the next Command Complete or Command Status (at most 8). When the input is
    /// spent, the controller answers plainly and the scenario runs to its end.
    ///
    /// Checks, with `precondition`: the scenario ends (on virtual time: a task left waiting for
    /// nothing stops the runtime before the body returns); a scan that succeeds ends by its
    /// deadline; the host never keeps more connections than it may, nor more strays, scan
    /// results or services per result than its bounds; a connection the host returns is on the
    /// handle and peer the controller completed. Returns the number of packets delivered.
    @discardableResult
    public static func hostSession(_ data: [UInt8], clock: HostClock, elapsed: @escaping @Sendable () -> Duration) async -> Int {
        let control = data.first ?? 0
        let scenario = HostScenario(rawValue: control & 0x03) ?? .scan
        let repeats = control & 0x80 != 0 ? 32 : 1
        var decoder = H4StreamDecoder(maximumACLLength: 1024)
        var packets: [HCIPacket] = []
        do {
            try decoder.append(data.dropFirst()) { output in
                if case .packet(let packet) = output, packets.count < 4096 { packets.append(packet) }
            }
        } catch {
            // Out of step: the packets decoded before count.
        }
        let transport = MemoryHCITransport(capacity: 16, description: "fuzz:controller")
        let configuration = LEHost.Configuration(
            commandTimeout: .seconds(2), optionalCommandTimeout: .milliseconds(500), connectTimeout: .seconds(2), maximumConnections: 2)
        let quiet = Logger(label: "ble.host.fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
        let host = LEHost(transport: transport, configuration: configuration, clock: clock, logger: quiet)
        let controller = FuzzController(transport: transport, host: host, script: packets, repeats: repeats)
        let serving = clock.task { await controller.serve() }

        let peer = LEAddress(bytes: [0xC0, 0x11, 0x22, 0x33, 0x44, 0x55], kind: .random)!
        do throws(LEHostError) {
            try await host.start()
            switch scenario {
            case .scan:
                let start = elapsed()
                let results = try await host.scan(for: .seconds(1))
                precondition(elapsed() - start <= .seconds(1), "the scan ended \(elapsed() - start) after it started")
                checkResults(results, service: nil)
            case .find:
                let service = BluetoothUUID(0x1234)
                let start = elapsed()
                let found = try await host.find(service: service, within: .seconds(1)) { $0.name == "smp" }
                precondition(elapsed() - start <= .seconds(1), "the search ended \(elapsed() - start) after it started")
                if let found { precondition(found.name == "smp" && found.services.contains(service), "find returned \(found)") }
            case .connectAndGATT:
                let results = try await host.scan(for: .milliseconds(200))
                checkResults(results, service: nil)
                let target = results.first?.address ?? peer
                let connection = try await host.connect(to: target)
                precondition(connection.handle == requestedHandle || controller.completedByInput(connection.handle), "connected on handle \(connection.handle)")
                let client = GATTClient(
                    bearer: connection.attBearer, configuration: GATTClient.Configuration(transactionTimeout: .seconds(1)),
                    clock: clock, logger: quiet)
                _ = try? await client.exchangeMTU()
                if let services = try? await client.discoverPrimaryServices() {
                    precondition(services.allSatisfy { $0.startHandle <= $0.endHandle }, "a service ends before it starts")
                }
                _ = try? await client.read(handle: 0x0003)
                try? await client.write([1, 2, 3], to: 0x0003)
                await client.close()
                await connection.disconnect()
            case .accept:
                // Advertising waits for a central as long as it takes: stopped after 2 s.
                let acceptance = clock.task {
                    guard let connection = try? await host.accept(advertising: LEAdvertisement(services: [BluetoothUUID(0x1234)], name: "fuzz")) else { return }
                    precondition(!connection.isCentral, "accepted a connection as central")
                    await connection.disconnect()
                }
                let timer = clock.task {
                    try? await clock.sleep(for: .seconds(2))
                    acceptance.cancel()
                }
                await acceptance.value
                timer.cancel()
            }
        } catch {
            // Any typed error is an outcome.
        }
        host.checkBounds()
        await host.close()
        transport.end(reason: "the fuzz input ended")
        await serving.value
        return controller.delivered
    }

    private static func checkResults(_ results: [LEScanResult], service: BluetoothUUID?) {
        precondition(results.count <= ScanCollector.capacity, "\(results.count) scan results")
        precondition(Set(results.map(\.address)).count == results.count, "a device listed twice")
        for result in results {
            precondition(result.services.count <= ScanCollector.maximumServices + 1, "\(result.services.count) services for one device")
        }
    }
}

extension LEHost {
    /// Fails (precondition) when the host holds more than its bounds allow.
    func checkBounds() {
        state.withLockedValue { s in
            precondition(s.connections.count <= configuration.maximumConnections, "\(s.connections.count) connections kept")
            precondition(s.strays.count <= Self.strayCapacity, "\(s.strays.count) strays queued")
            precondition(s.parameterReplies.isSubset(of: Set(s.connections.keys)) || s.closedReason != nil, "a parameter reply for a connection not kept")
            precondition(s.creditWaiters.count <= 64, "\(s.creditWaiters.count) senders waiting for ACL buffers")
            if let scan = s.scan { precondition(scan.collector.count <= ScanCollector.capacity + ScanCollector.othersCapacity, "the scan holds \(scan.collector.count) devices") }
        }
    }
}

/// The fuzz input's controller: answers like a plain LE controller, after delivering the input's packets.
private final class FuzzController: Sendable {
    let transport: MemoryHCITransport
    let host: LEHost
    private let state: NIOLockedValueBox<State>

    private struct State {
        var script: [HCIPacket]
        var next = 0
        var delivered = 0
        var handles: Set<UInt16> = []
    }

    private let repeats: Int

    init(transport: MemoryHCITransport, host: LEHost, script: [HCIPacket], repeats: Int) {
        self.transport = transport
        self.host = host
        self.repeats = repeats
        self.state = NIOLockedValueBox(State(script: script))
    }

    var delivered: Int { state.withLockedValue { $0.delivered } }

    /// Whether the input completed a connection on `handle`.
    func completedByInput(_ handle: UInt16) -> Bool { state.withLockedValue { $0.handles.contains(handle) } }

    func serve() async {
        for await packet in transport.outbound {
            await deliverScript()
            host.checkBounds()
            guard case .command(let opcode, let parameters) = packet else {
                // ACL data: its buffer comes back (Number Of Completed Packets).
                if case .acl(let acl) = packet {
                    await transport.deliver(.event(code: 0x13, parameters: [1, UInt8(acl.handle & 0xFF), UInt8(acl.handle >> 8), 1, 0]))
                }
                continue
            }
            for answer in Self.answers(opcode: opcode, parameters: parameters) { await transport.deliver(answer) }
        }
    }

    /// The input's next packets, up to and including a Command Complete or Status (at most 8).
    private func deliverScript() async {
        for _ in 0..<8 {
            let packet = state.withLockedValue { s -> HCIPacket? in
                guard s.next < s.script.count else { return nil }
                defer { s.next += 1 }
                let packet = s.script[s.next]
                if case .event(0x3E, let p) = packet, p.count >= 4, p[0] == 0x01 || p[0] == 0x0A, p[1] == 0 {
                    s.handles.insert((UInt16(p[2]) | UInt16(p[3]) << 8) & 0x0FFF)
                }
                s.delivered += repeats
                return packet
            }
            guard let packet else { return }
            for _ in 0..<repeats { await transport.deliver(packet) }
            if case .event(let code, _) = packet, code == 0x0E || code == 0x0F { return }
        }
    }

    /// What a plain controller answers to a command.
    static func answers(opcode: UInt16, parameters: [UInt8]) -> [HCIPacket] {
        func complete(_ returned: [UInt8]) -> HCIPacket { .event(code: 0x0E, parameters: [1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + returned) }
        let status = HCIPacket.event(code: 0x0F, parameters: [0, 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)])
        switch opcode {
        case 0x1001: return [complete([0, 9, 0, 0, 9, 0xFF, 0xFF, 0, 0])]
        case 0x2060: return [complete([0, 0xFB, 0, 4, 0, 0, 0])]
        case 0x2003: return [complete([0, 0x20, 0x01, 0, 0, 0, 0, 0, 0])]
        case 0x200D:
            // Completed at once for the peer asked, on the requested handle.
            let peer = parameters.count >= 12 ? Array(parameters[6..<12]) : [UInt8](repeating: 0, count: 6)
            let type = parameters.count >= 6 ? parameters[5] : 0
            let handle = HCIFuzzing.requestedHandle
            return [status, .event(code: 0x3E, parameters: [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, type] + peer + [6, 0, 0, 0, 0xC8, 0, 0])]
        case 0x0406:
            return [status, .event(code: 0x05, parameters: [0] + parameters.prefix(2) + [0x16])]
        case 0x2013, 0x2032: return [status]
        default: return [complete([0])]
        }
    }
}
