import GATT
import SMP
import SMPBLE
import SMPTestTraits

/// The far end of a socketpair, answering ATT by hand: the SMP service at 0x10–0x13 (value 0x12,
/// CCCD 0x13), with one step refusable.
final class ScriptedPeripheral {
    /// A step of the client's connection set-up.
    enum Step: String, CaseIterable, Sendable {
        case mtu, service, characteristic, descriptor, cccd
    }

    let bearer: FileDescriptorBearer
    private var iterator: AsyncStream<ATTBearerEvent>.Iterator

    init(_ bearer: FileDescriptorBearer) {
        self.bearer = bearer
        iterator = bearer.inbound.makeAsyncIterator()
    }

    /// A socketpair: the connector hands out the client end once; the scripted end is returned.
    static func pair() throws -> (BLEConnector, ScriptedPeripheral) {
        let (client, server) = try FileDescriptorBearer.socketPair()
        let handed = Handout(client)
        let connector = BLEConnector("scripted peripheral") { () async throws(BLEError) -> any ATTBearer in
            guard let bearer = await handed.take() else { throw .refused("the scripted peripheral takes one connection") }
            return bearer
        }
        return (connector, ScriptedPeripheral(server))
    }

    /// Runs `body` with a transport to a new scripted peripheral, both closed afterwards (or when
    /// `body` hangs); with `connected`, the transport has connected and the peripheral served the set-up.
    static func withTransport<T>(connected: Bool, _ body: (BLETransport, ScriptedPeripheral) async throws -> T) async throws -> T {
        let (connector, peripheral) = try pair()
        let transport = BLETransport(connector: connector, logger: BLEFixtures.quietLogger)
        let bearer = peripheral.bearer
        return try await guarded(cleanup: { await transport.close(); await bearer.close() }) { () async throws -> T in
            if connected {
                async let connecting: Void = transport.connect()
                try await peripheral.serveSetup()
                try await connecting
            }
            return try await body(transport, peripheral)
        }
    }

    func next() async throws -> ATTPDU? {
        guard let event = await iterator.next(), case .pdu(let bytes) = event else { return nil }
        return try ATTPDU(decoding: bytes)
    }

    func send(_ pdu: ATTPDU) async throws {
        try await bearer.send(pdu.bytes)
    }

    /// Answers the client's set-up requests until `failing` (refused with Insufficient
    /// Authentication), or until notifications are enabled when `failing` is nil.
    func serveSetup(failing: Step? = nil, mtu: UInt16 = 247) async throws {
        while let request = try await next() {
            let step: Step
            let answer: ATTPDU
            switch request {
            case .exchangeMTURequest:
                (step, answer) = (.mtu, .exchangeMTUResponse(serverRxMTU: mtu))
            case .findByTypeValueRequest(let start, _, _, _):
                step = .service
                answer = start <= 0x10
                    ? .findByTypeValueResponse([ATTHandleRange(found: 0x10, groupEnd: 0x13)])
                    : .errorResponse(request: request.opcode, handle: start, code: .attributeNotFound)
            case .readByTypeRequest(let start, _, _):
                step = .characteristic
                answer = start <= 0x11
                    ? .readByTypeResponse([ATTHandleValue(handle: 0x11, value: [0x14, 0x12, 0x00] + BLETransport.characteristicUUID.littleEndianBytes)])
                    : .errorResponse(request: request.opcode, handle: start, code: .attributeNotFound)
            case .findInformationRequest:
                (step, answer) = (.descriptor, .findInformationResponse([ATTHandleType(handle: 0x13, type: .clientCharacteristicConfiguration)]))
            case .writeRequest(0x13, _):
                (step, answer) = (.cccd, .writeResponse)
            default:
                continue
            }
            if step == failing {
                try await send(.errorResponse(request: request.opcode, handle: 0x13, code: .insufficientAuthentication))
                return
            }
            try await send(answer)
            if step == .cccd { return }
        }
    }
}

/// Hands a bearer out once.
actor Handout {
    private var bearer: (any ATTBearer)?
    init(_ bearer: any ATTBearer) { self.bearer = bearer }
    func take() -> (any ATTBearer)? {
        defer { bearer = nil }
        return bearer
    }
}

/// SMP packets written by hand (header + CBOR) for the tests that speak below the session.
enum Packets {
    /// An SMP v2 echo request `{"d": text}` (text shorter than 24 bytes).
    static func echoRequest(_ text: String, sequence: UInt8) -> [UInt8] {
        let payload: [UInt8] = [0xA1, 0x61, 0x64, 0x60 | UInt8(text.utf8.count)] + Array(text.utf8)
        return SMPHeader(operation: .write, length: UInt16(payload.count), group: 0, sequence: sequence, command: 0).bytes + payload
    }

    /// An SMP v2 echo response `{"r": text}`.
    static func echoResponse(_ text: String, sequence: UInt8) -> [UInt8] {
        let payload: [UInt8] = [0xA1, 0x61, 0x72, 0x60 | UInt8(text.utf8.count)] + Array(text.utf8)
        return SMPHeader(operation: .writeResponse, length: UInt16(payload.count), group: 0, sequence: sequence, command: 0).bytes + payload
    }
}
