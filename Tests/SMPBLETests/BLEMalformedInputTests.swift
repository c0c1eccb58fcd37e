import GATT
import Logging
import SMP
import SMPBLE
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Synchronization
import Testing

@Suite("Malformed and hostile ATT over BLE")
struct BLEMalformedInputTests {
    @Test("an ATT error at each set-up step fails connect() with the spec's error name", arguments: ScriptedPeripheral.Step.allCases)
    func errorAtEachStep(step: ScriptedPeripheral.Step) async throws {
        let error = try await ScriptedPeripheral.withTransport(connected: false) { transport, peripheral async throws -> SMPTransportError? in
            async let attempt: SMPTransportError? = {
                do throws(SMPTransportError) { try await transport.connect() } catch { return error }
                return nil
            }()
            try await peripheral.serveSetup(failing: step)
            return await attempt
        }
        guard case .unreachable(let message) = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("Insufficient Authentication"))
    }

    @Test("a short answer to the MTU exchange fails connect() as an invalid ATT response")
    func shortAnswer() async throws {
        let error = try await ScriptedPeripheral.withTransport(connected: false) { transport, peripheral async throws -> SMPTransportError? in
            async let attempt: SMPTransportError? = {
                do throws(SMPTransportError) { try await transport.connect() } catch { return error }
                return nil
            }()
            #expect(try await peripheral.next() == .exchangeMTURequest(clientRxMTU: 498))
            try await peripheral.bearer.send([0x03, 0xF7])
            return await attempt
        }
        #expect(error?.description.contains("invalid ATT response") == true)
    }

    @Test("notifications of another handle and unknown opcodes are ignored; the SMP characteristic's get through")
    func foreignNotificationsIgnored() async throws {
        try await ScriptedPeripheral.withTransport(connected: true) { transport, peripheral async throws in
            try await peripheral.send(.handleValueNotification(handle: 0x99, value: Packets.echoResponse("other", sequence: 1)))
            try await peripheral.bearer.send([0x7F, 0x12, 0x00, 0x01])
            try await peripheral.bearer.send([0x1B])
            // One response in two notifications of the SMP characteristic.
            let response = Packets.echoResponse("mine", sequence: 2)
            try await peripheral.send(.handleValueNotification(handle: 0x12, value: Array(response.prefix(5))))
            try await peripheral.send(.handleValueNotification(handle: 0x12, value: Array(response.dropFirst(5))))
            var received: [[UInt8]] = []
            for await event in transport.events {
                if case .received(let packet) = event {
                    received.append(packet)
                    break
                }
            }
            #expect(received == [response])
        }
    }

    @Test("a response fragment claiming more bytes than ever arrive: the request times out, typed")
    func clientSideFragmentNeverCompleted() async throws {
        try await ScriptedPeripheral.withTransport(connected: true) { transport, peripheral async throws in
            let client = SMPClient(transport: transport, configuration: SMPClient.Configuration(timeout: .milliseconds(300), retries: 0), logger: BLEFixtures.quietLogger)
            async let echo: (any Error)? = {
                do { _ = try await client.transceive(.write, group: .os, command: 0, payload: [0xA1, 0x61, 0x64, 0x61, 0x78], retryPolicy: .resend) } catch { return error }
                return nil
            }()
            guard case .writeCommand(0x12, let request)? = try await peripheral.next() else {
                Issue.record("the echo request did not arrive as a write command")
                return
            }
            // A header claiming 60 000 bytes, then only 12 of them.
            let header = SMPHeader(operation: .writeResponse, length: 60_000, group: 0, sequence: request[6], command: 0).bytes
            try await peripheral.send(.handleValueNotification(handle: 0x12, value: header + [UInt8](repeating: 0xA5, count: 12)))
            let error = await echo
            guard case .timeout? = error as? SMPError else {
                Issue.record("expected an SMP timeout, got \(String(describing: error))")
                return
            }
            await client.close()
        }
    }

    @Test("a peer that never answers the MTU exchange: connect() fails after the 30 s ATT timeout (virtual time)")
    func silentPeerOnVirtualTime() async throws {
        let runtime = VirtualRuntime()
        let (message, elapsed) = try await runtime.run { clock async throws -> (String, Duration) in
            let (near, far) = MemoryATTBearer.pair()
            let handed = Handout(near)
            let connector = BLEConnector("silent") { () async throws(BLEError) -> any ATTBearer in
                guard let bearer = await handed.take() else { throw .refused("once") }
                return bearer
            }
            let transport = BLETransport(connector: connector, clock: clock, logger: BLEFixtures.quietLogger)
            var requests = far.inbound.makeAsyncIterator()
            async let attempt: String = {
                do throws(SMPTransportError) { try await transport.connect() } catch { return error.description }
                return "connected"
            }()
            let first = await requests.next()
            let message = await attempt
            #expect(first == .pdu(ATTPDU.exchangeMTURequest(clientRxMTU: 498).bytes))
            await transport.close()
            return (message, clock.now.offset)
        }
        #expect(message.contains("no answer to ATT_EXCHANGE_MTU_REQ within 30"))
        #expect(elapsed == .seconds(30))
    }

    @Test("the peripheral drops responses until the CCCD is written, as a device does (virtual time)")
    func notificationsBeforeCCCD() async throws {
        // On virtual time, over an in-memory bearer: the device has handled the early request (and the
        // peripheral dropped its answer) before the clock moves, however loaded the machine.
        try await VirtualRuntime().run { clock async throws in
            let device = SimulatedDevice(configuration: BLEFixtures.configuration(), clock: clock, logger: BLEFixtures.quietLogger)
            let peripheral = await SimulatorGATTPeripheral.start(device: device, clock: clock, logger: BLEFixtures.quietLogger)
            let client = GATTClient(
                bearer: try await peripheral.connectInMemory(), clock: GATTClock(clock, taskExecutor: clock.taskExecutor),
                logger: BLEFixtures.quietLogger)
            _ = try await client.exchangeMTU()
            let service = try #require(try await client.discoverPrimaryServices(uuid: BLETransport.serviceUUID).first)
            let smp = try #require(try await client.discoverCharacteristics(of: service).first { $0.uuid == BLETransport.characteristicUUID })
            // Listen for the value handle, but do not write the CCCD yet.
            await client.subscribe(valueHandle: smp.valueHandle)
            try await client.writeWithoutResponse(Packets.echoRequest("early", sequence: 1), to: smp.valueHandle)
            try await clock.sleep(for: .seconds(1))
            #expect(peripheral.responsesDroppedWithoutNotifications == 1)
            try await client.setNotifications(.notifications, for: smp)
            try await client.writeWithoutResponse(Packets.echoRequest("late", sequence: 2), to: smp.valueHandle)
            var first: [UInt8]?
            for await event in client.events {
                if case .notification(_, let value) = event {
                    first = value
                    break
                }
            }
            #expect(first == Packets.echoResponse("late", sequence: 2))
            #expect(await device.requestsProcessed == 2)
            await client.close()
            await peripheral.close()
        }
    }

    @Test("the peripheral's write reassembly answers Zephyr's ATT errors, and recovers")
    func peripheralReassemblyErrors() async throws {
        let device = SimulatedDevice(configuration: BLEFixtures.configuration(), logger: BLEFixtures.quietLogger)
        let peripheral = await SimulatorGATTPeripheral.start(device: device, logger: BLEFixtures.quietLogger)
        let client = GATTClient(bearer: try await peripheral.connectSocketPair(), logger: BLEFixtures.quietLogger)
        try await guarded(cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            _ = try await client.exchangeMTU()
            let service = try #require(try await client.discoverPrimaryServices(uuid: BLETransport.serviceUUID).first)
            let smp = try #require(try await client.discoverCharacteristics(of: service).first { $0.uuid == BLETransport.characteristicUUID })
            try await client.setNotifications(.notifications, for: smp)
            func refusal(_ value: [UInt8]) async -> ATTErrorCode? {
                do throws(GATTError) {
                    try await client.write(value, to: smp.valueHandle)
                    return nil
                } catch {
                    if case .att(let response) = error { return response.code }
                    return nil
                }
            }
            // Shorter than a header; a header claiming more than buf_size (2048).
            #expect(await refusal([0x02, 0x00, 0x00]) == .valueNotAllowed)
            #expect(await refusal(SMPHeader(operation: .write, length: 5000, group: 0, sequence: 0, command: 0).bytes) == .valueNotAllowed)
            // A fragment claiming 100 bytes, then one overshooting it: refused, and the partial is dropped.
            let first = SMPHeader(operation: .write, length: 92, group: 0, sequence: 0, command: 0).bytes + [UInt8](repeating: 0, count: 12)
            try await client.writeWithoutResponse(first, to: smp.valueHandle)
            #expect(await refusal([UInt8](repeating: 0, count: 200)) == .valueNotAllowed)
            // Whole packets work again, as a Write Request too.
            #expect(await refusal(Packets.echoRequest("again", sequence: 3)) == nil)
            for await event in client.events {
                if case .notification(_, let value) = event {
                    #expect(value == Packets.echoResponse("again", sequence: 3))
                    break
                }
            }
        }
    }

    @Test("without reassembly a write larger than buf_size is Insufficient Resources")
    func noReassemblyLimit() async throws {
        let device = SimulatedDevice(configuration: BLEFixtures.configuration { $0.bufferSize = 256 }, logger: BLEFixtures.quietLogger)
        let peripheral = await SimulatorGATTPeripheral.start(
            device: device, configuration: GATTPeripheralConfiguration(reassembly: false), logger: BLEFixtures.quietLogger)
        let client = GATTClient(bearer: try await peripheral.connectSocketPair(), logger: BLEFixtures.quietLogger)
        try await guarded(cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            _ = try await client.exchangeMTU()
            do throws(GATTError) {
                try await client.write([UInt8](repeating: 0, count: 300), to: 0x12)
                Issue.record("a 300-byte write to a 256-byte buffer was accepted")
            } catch {
                guard case .att(let response) = error else {
                    Issue.record("expected an ATT error, got \(error)")
                    return
                }
                #expect(response.code == .insufficientResources)
            }
        }
    }
}
