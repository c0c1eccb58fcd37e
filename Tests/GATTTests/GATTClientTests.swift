import GATT
import Logging
import SMP
import SMPTestSupport
import Synchronization
import Testing

@Suite("GATT client against a scripted peer, on virtual time")
struct GATTClientTests {
    static let smp = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!
    static let smpCharacteristic = BluetoothUUID(string: "DA2E7828-FBCE-4E01-AE9E-261174997C48")!

    @Test("the MTU is the smaller offer; a server without the exchange leaves 23")
    func mtuExchange() async throws {
        let runtime = VirtualRuntime()
        let results = try await runtime.run { clock async throws -> [Int] in
            var results: [Int] = []
            for (offer, answer) in [(498, ATTPDU.exchangeMTUResponse(serverRxMTU: 247)), (185, .exchangeMTUResponse(serverRxMTU: 517)),
                                    (498, .exchangeMTUResponse(serverRxMTU: 10)),
                                    (498, .errorResponse(request: .exchangeMTURequest, handle: 0, code: .requestNotSupported))] {
                let h = ClientHarness(clock: clock, preferredMTU: offer)
                let client = h.client
                let peer = h.peer
                async let mtu = client.exchangeMTU()
                #expect(try await peer.next() == .exchangeMTURequest(clientRxMTU: UInt16(offer)))
                try await peer.send(answer)
                results.append(try await mtu)
                #expect(await client.maximumValueLength == results.last! - 3)
                await client.close()
            }
            return results
        }
        #expect(results == [247, 185, 23, 23])
    }

    @Test("a peer that never answers the MTU exchange: timeout after 30 s, bearer closed, later requests fail at once")
    func silentPeerTimesOut() async throws {
        let runtime = VirtualRuntime()
        let (error, closedEvent, later) = try await runtime.run { clock async throws -> (GATTError?, ATTBearerEvent?, GATTError?) in
            let h = ClientHarness(clock: clock)
            let client = h.client
            let peer = h.peer
            async let attempt: GATTError? = {
                do throws(GATTError) { _ = try await client.exchangeMTU() } catch { return error }
                return nil
            }()
            #expect(try await peer.next() == .exchangeMTURequest(clientRxMTU: 498))
            let caught = await attempt
            let closed = await peer.nextEvent()
            var second: GATTError?
            do throws(GATTError) { _ = try await client.read(handle: 3) } catch { second = error }
            return (caught, closed, second)
        }
        #expect(error == .timeout(request: .exchangeMTURequest, after: .seconds(30)))
        guard case .closed = closedEvent else {
            Issue.record("the peer did not see the bearer close: \(String(describing: closedEvent))")
            return
        }
        guard case .closed(let reason) = later else {
            Issue.record("a request after the timeout did not fail as closed: \(String(describing: later))")
            return
        }
        #expect(reason.contains("ATT_EXCHANGE_MTU_REQ"))
        #expect(runtime.elapsed == .seconds(30))
    }

    @Test("discovery walks the service, characteristics and CCCD, then notifications flow")
    func discoveryAndNotifications() async throws {
        let runtime = VirtualRuntime()
        let (characteristic, events) = try await runtime.run { clock async throws -> (GATTCharacteristic, [GATTClientEvent]) in
            let h = ClientHarness(clock: clock)
            let client = h.client
            let peer = h.peer
            async let setup: GATTCharacteristic = {
                let service = try #require(try await client.discoverPrimaryServices(uuid: Self.smp).first)
                let characteristics = try await client.discoverCharacteristics(of: service)
                let smp = try #require(characteristics.first { $0.uuid == Self.smpCharacteristic })
                try await client.setNotifications(.notifications, for: smp)
                return smp
            }()
            #expect(try await peer.next() == .findByTypeValueRequest(start: 1, end: 0xFFFF, type: 0x2800, value: Self.smp.littleEndianBytes))
            try await peer.send(.findByTypeValueResponse([ATTHandleRange(found: 0x10, groupEnd: 0x16)]))
            #expect(try await peer.next() == .findByTypeValueRequest(start: 0x17, end: 0xFFFF, type: 0x2800, value: Self.smp.littleEndianBytes))
            try await peer.send(.errorResponse(request: .findByTypeValueRequest, handle: 0x17, code: .attributeNotFound))
            #expect(try await peer.next() == .readByTypeRequest(start: 0x10, end: 0x16, type: .characteristic))
            try await peer.send(.readByTypeResponse([ATTHandleValue(handle: 0x11, value: [0x14, 0x12, 0x00] + Self.smpCharacteristic.littleEndianBytes)]))
            #expect(try await peer.next() == .readByTypeRequest(start: 0x12, end: 0x16, type: .characteristic))
            try await peer.send(.readByTypeResponse([ATTHandleValue(handle: 0x15, value: [0x02, 0x16, 0x00, 0x00, 0x2A])]))
            #expect(try await peer.next() == .readByTypeRequest(start: 0x16, end: 0x16, type: .characteristic))
            try await peer.send(.errorResponse(request: .readByTypeRequest, handle: 0x16, code: .attributeNotFound))
            // The characteristic ends before the next declaration: descriptors are looked for in 0x13–0x14.
            #expect(try await peer.next() == .findInformationRequest(start: 0x13, end: 0x14))
            try await peer.send(.findInformationResponse([ATTHandleType(handle: 0x13, type: BluetoothUUID(0x2901)), ATTHandleType(handle: 0x14, type: .clientCharacteristicConfiguration)]))
            #expect(try await peer.next() == .writeRequest(handle: 0x14, value: [0x01, 0x00]))
            try await peer.send(.writeResponse)
            let characteristic = try await setup

            // A notification of another handle and a stray response are ignored; ours come through.
            try await peer.send(.handleValueNotification(handle: 0x16, value: [9, 9]))
            try await peer.send(.writeResponse)
            try await peer.send(.handleValueNotification(handle: 0x12, value: [1, 2, 3]))
            try await peer.send(.handleValueIndication(handle: 0x12, value: [4]))
            #expect(try await peer.next() == .handleValueConfirmation)
            await client.close()
            var events: [GATTClientEvent] = []
            for await event in client.events { events.append(event) }
            return (characteristic, events)
        }
        #expect(characteristic.valueHandle == 0x12)
        #expect(characteristic.endHandle == 0x14)
        #expect(characteristic.properties == [.writeWithoutResponse, .notify])
        #expect(events.count == 3)
        #expect(events.prefix(2) == [.notification(handle: 0x12, value: [1, 2, 3]), .indication(handle: 0x12, value: [4])])
    }

    /// The discovery step a peer refuses, and what the client then sees.
    enum Step: CaseIterable {
        case service, characteristic, descriptor, cccdWrite
    }

    @Test("an error response at each discovery step is a typed ATT error with the spec's name", arguments: Step.allCases)
    func errorAtEachStep(step: Step) async throws {
        let runtime = VirtualRuntime()
        let error = try await runtime.run { clock async throws -> GATTError? in
            let h = ClientHarness(clock: clock)
            let client = h.client
            let peer = h.peer
            let outcome = Mutex<GATTError?>(nil)
            let task = clock.task {
                do throws(GATTError) {
                    let service = try await client.discoverPrimaryServices(uuid: Self.smp)[0]
                    let smp = try await client.discoverCharacteristics(of: service)[0]
                    try await client.setNotifications(.notifications, for: smp)
                } catch {
                    outcome.withLock { $0 = error }
                }
            }
            let refusal = ATTErrorCode.insufficientAuthentication
            var request = try #require(try await peer.next())
            if step == .service {
                try await peer.send(.errorResponse(request: request.opcode, handle: 1, code: refusal))
            } else {
                try await peer.send(.findByTypeValueResponse([ATTHandleRange(found: 0x10, groupEnd: 0xFFFF)]))
                request = try #require(try await peer.next())
                if step == .characteristic {
                    try await peer.send(.errorResponse(request: request.opcode, handle: 0x10, code: refusal))
                } else {
                    try await peer.send(.readByTypeResponse([ATTHandleValue(handle: 0x11, value: [0x14, 0x12, 0x00] + Self.smpCharacteristic.littleEndianBytes)]))
                    request = try #require(try await peer.next())
                    try await peer.send(.errorResponse(request: request.opcode, handle: 0x12, code: .attributeNotFound))
                    request = try #require(try await peer.next())
                    if step == .descriptor {
                        try await peer.send(.errorResponse(request: request.opcode, handle: 0x13, code: refusal))
                    } else {
                        try await peer.send(.findInformationResponse([ATTHandleType(handle: 0x13, type: .clientCharacteristicConfiguration)]))
                        request = try #require(try await peer.next())
                        try await peer.send(.errorResponse(request: request.opcode, handle: 0x14, code: .attributeNotFound))
                        request = try #require(try await peer.next())
                        #expect(request == .writeRequest(handle: 0x13, value: [1, 0]))
                        try await peer.send(.errorResponse(request: request.opcode, handle: 0x13, code: refusal))
                    }
                }
            }
            await task.value
            await client.close()
            return outcome.withLock { $0 }
        }
        let expected: ATTOpcode = [.service: .findByTypeValueRequest, .characteristic: .readByTypeRequest, .descriptor: .findInformationRequest, .cccdWrite: .writeRequest][step]!
        guard case .att(let response) = error else {
            Issue.record("expected an ATT error, got \(String(describing: error))")
            return
        }
        #expect(response.request == expected)
        #expect(response.code == .insufficientAuthentication)
        #expect(response.description.contains("Insufficient Authentication"))
    }

    @Test("a missing CCCD is a not-found error; a server without the service finds none")
    func missingPieces() async throws {
        let runtime = VirtualRuntime()
        let (services, error) = try await runtime.run { clock async throws -> ([GATTService], GATTError?) in
            let h = ClientHarness(clock: clock)
            let client = h.client
            let peer = h.peer
            async let services = client.discoverPrimaryServices(uuid: Self.smp)
            _ = try await peer.next()
            try await peer.send(.errorResponse(request: .findByTypeValueRequest, handle: 1, code: .attributeNotFound))
            let found = try await services
            let characteristic = GATTCharacteristic(uuid: Self.smpCharacteristic, declarationHandle: 0x11, valueHandle: 0x12, endHandle: 0x13, properties: .notify)
            async let enable: Void = client.setNotifications(.notifications, for: characteristic)
            _ = try await peer.next()
            try await peer.send(.findInformationResponse([ATTHandleType(handle: 0x13, type: BluetoothUUID(0x2901))]))
            var caught: GATTError?
            do { try await enable } catch { caught = error as? GATTError }
            await client.close()
            return (found, caught)
        }
        #expect(services.isEmpty)
        guard case .notFound(let what) = error else {
            Issue.record("expected notFound, got \(String(describing: error))")
            return
        }
        #expect(what.contains("Client Characteristic Configuration"))
    }

    @Test("one request at a time: the second waits until the first is answered")
    func oneOutstandingRequest() async throws {
        let runtime = VirtualRuntime()
        let (order, values) = try await runtime.run { clock async throws -> ([ATTPDU], [[UInt8]]) in
            let h = ClientHarness(clock: clock)
            let client = h.client
            let peer = h.peer
            let first = clock.throwingTask { try await client.read(handle: 1) }
            let second = clock.throwingTask { try await client.read(handle: 2) }
            var order: [ATTPDU] = []
            order.append(try #require(try await peer.next()))
            // Commands flow beside the outstanding request.
            try await client.writeWithoutResponse([7], to: 9)
            order.append(try #require(try await peer.next()))
            try await clock.sleep(for: .seconds(10))
            try await peer.send(.readResponse(value: [0xA]))
            order.append(try #require(try await peer.next()))
            try await peer.send(.readResponse(value: [0xB]))
            let values = [try await first.value, try await second.value]
            await client.close()
            return (order, values)
        }
        #expect(order == [.readRequest(handle: 1), .writeCommand(handle: 9, value: [7]), .readRequest(handle: 2)])
        #expect(values.sorted { $0[0] < $1[0] } == [[0xA], [0xB]])
    }

    @Test("bad input from the peer: typed errors for answers, Request Not Supported for unknown requests, nothing for commands")
    func malformedInput() async throws {
        let runtime = VirtualRuntime()
        let (short, lying, replies, alive) = try await runtime.run { clock async throws -> (GATTError?, GATTError?, [ATTPDU], Bool) in
            let h = ClientHarness(clock: clock)
            let client = h.client
            let peer = h.peer
            // A short answer to the outstanding request.
            async let mtu = client.exchangeMTU()
            _ = try await peer.next()
            try await peer.sendRaw([0x03, 0xF7])
            var short: GATTError?
            do { _ = try await mtu } catch { short = error as? GATTError }
            // A response whose length byte claims more than arrived.
            async let read = client.discoverCharacteristics(of: GATTService(uuid: Self.smp, startHandle: 0x10, endHandle: 0x20))
            _ = try await peer.next()
            try await peer.sendRaw([0x09, 0xFF, 0x11, 0x00, 0x14])
            var lying: GATTError?
            do { _ = try await read } catch { lying = error as? GATTError }
            // An unknown opcode with the command bit clear, an unknown command, an empty PDU, a read request.
            try await peer.sendRaw([0x3F, 0x01])
            try await peer.sendRaw([0x7F, 0x01])
            try await peer.sendRaw([])
            try await peer.send(.readRequest(handle: 5))
            try await peer.sendRaw([0x0A])
            let replies = [try await peer.next(), try await peer.next(), try await peer.next()].compactMap { $0 }
            let alive = await !client.isClosed
            await client.close()
            return (short, lying, replies, alive)
        }
        guard case .invalidResponse = short, case .invalidResponse = lying else {
            Issue.record("expected invalid responses, got \(String(describing: short)), \(String(describing: lying))")
            return
        }
        #expect(replies == [
            .errorResponse(request: ATTOpcode(rawValue: 0x3F), handle: 0, code: .requestNotSupported),
            .errorResponse(request: .readRequest, handle: 5, code: .invalidHandle),
            .errorResponse(request: .readRequest, handle: 0, code: .invalidPDU),
        ])
        #expect(alive)
    }

    @Test("the peer's own MTU exchange is answered and sets the MTU; over-long writes are refused before sending")
    func peerInitiatedExchange() async throws {
        let runtime = VirtualRuntime()
        let (answer, mtu, error) = try await runtime.run { clock async throws -> (ATTPDU?, Int, GATTError?) in
            let h = ClientHarness(clock: clock, preferredMTU: 247)
            let client = h.client
            let peer = h.peer
            try await peer.send(.exchangeMTURequest(clientRxMTU: 100))
            let answer = try await peer.next()
            let mtu = await client.mtu
            var refusal: GATTError?
            do throws(GATTError) { try await client.writeWithoutResponse([UInt8](repeating: 0, count: 98), to: 0x12) } catch { refusal = error }
            await client.close()
            return (answer, mtu, refusal)
        }
        #expect(answer == .exchangeMTUResponse(serverRxMTU: 247))
        #expect(mtu == 100)
        #expect(error == .valueTooLong(size: 98, limit: 97))
    }
}
