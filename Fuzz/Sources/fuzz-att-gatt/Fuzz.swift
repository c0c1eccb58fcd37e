// products: GATT SMP SMPTestSupport swift-log/Logging
import FuzzSupport
import GATT
import Logging
import SMP
import SMPTestSupport

/// ATT PDUs and the GATT client's state machine as a hostile peripheral reaches them.
///
/// The whole input, and each PDU the peer sends, is decoded as an ATT PDU: what decodes re-encodes
/// to bytes that decode to the same PDU. Then a `GATTClient` runs a program of calls (MTU exchange,
/// discovery, CCCD writes, reads, writes, commands, two calls at once, close) over an in-memory
/// bearer whose peer answers every PDU it receives with the next turn of the input (up to three
/// PDUs of any bytes, then perhaps a disconnect) and falls silent when the input is spent. On
/// virtual time, so a silent peer ends each call by the transaction timeout at once.
///
/// Invariants: every call ends, with a result or a typed error; results respect the protocol (the
/// MTU within the offers, discovered handles inside the ranges asked, sorted characteristics); a
/// timeout names the configured timeout and closes the client; after `close()` (or a transaction
/// timeout) every request fails as closed; events carry only handles subscribed to, and end with
/// one `.closed`.
///
/// Input: a byte for the preferred MTU, one for the transaction timeout, one for the number of
/// calls, the calls (an opcode byte and its arguments), then the peer's turns (a byte: bits 0–1
/// the number of PDUs, bit 7 disconnect after them; each PDU a length byte and its bytes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzATTGATT(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    checkDecoding(input.bytes)

    let preferredMTU = 23 + Int(input.byte()) * 2
    let timeoutByte = input.byte()
    let timeout: Duration = timeoutByte == 0 ? .seconds(30) : .milliseconds(Int(timeoutByte) * 50)
    var program: [Call] = []
    for _ in 0..<(Int(input.byte() % 12) + 1) { program.append(Call.parse(from: &input)) }
    var turns: [Turn] = []
    while !input.isAtEnd, turns.count < 128 {
        let control = input.byte()
        var pdus: [[UInt8]] = []
        for _ in 0..<(control & 3) { pdus.append(input.take(Int(input.byte()))) }
        pdus.forEach(checkDecoding)
        turns.append(Turn(pdus: pdus, disconnect: control & 0x80 != 0))
    }
    let calls = program
    let script = turns

    VirtualRuntime().runOnCallingThread { clock in
        let (near, far) = MemoryATTBearer.pair()
        let client = GATTClient(
            bearer: near, configuration: GATTClient.Configuration(preferredMTU: preferredMTU, transactionTimeout: timeout),
            clock: GATTClock(clock, taskExecutor: clock.taskExecutor), logger: quiet)
        let peer = clock.task { await answer(far, script) }
        let events = clock.task { () -> [GATTClientEvent] in
            var received: [GATTClientEvent] = []
            for await event in client.events { received.append(event) }
            return received
        }
        let run = Run(client: client, timeout: timeout)
        for call in calls { await run.perform(call) }
        await client.close()
        let received = await events.value
        await peer.value
        precondition(received.last.map { if case .closed = $0 { true } else { false } } == true, "events did not end with .closed")
        precondition(received.filter { $0.handle == nil }.count == 1, "more than one .closed event")
        for event in received {
            if let handle = event.handle {
                precondition(run.allowed.contains(handle), "an event for handle \(handle), never subscribed to")
            }
        }
    }
    return 0
}

/// What the peer sends when it receives a PDU.
struct Turn: Sendable {
    var pdus: [[UInt8]]
    var disconnect: Bool
}

/// The peer: each PDU received takes the next turn (the first turn is sent at once); silent after.
func answer(_ bearer: MemoryATTBearer, _ script: [Turn]) async {
    var next = 0
    func play() async {
        guard next < script.count else { return }
        let turn = script[next]
        next += 1
        for pdu in turn.pdus { try? await bearer.send(pdu) }
        if turn.disconnect { bearer.disconnect(reason: "the peer disconnected") }
    }
    await play()
    for await event in bearer.inbound {
        guard case .pdu = event else { break }
        await play()
    }
}

/// One call of the program.
enum Call: Sendable {
    case exchangeMTU
    case discoverServices(byUUID: Bool)
    case discoverCharacteristics
    case discoverDescriptors
    case setNotifications(GATTClientConfiguration)
    case read(UInt16)
    case write([UInt8], UInt16)
    case writeWithoutResponse([UInt8], UInt16)
    case concurrently(UInt16, [UInt8])
    case subscribe(UInt16)
    case close

    static func parse(from input: inout FuzzInput) -> Call {
        func handle() -> UInt16 { UInt16(input.byte()) | UInt16(input.byte()) << 8 }
        switch input.byte() % 12 {
        case 0: return .exchangeMTU
        case 1: return .discoverServices(byUUID: true)
        case 2: return .discoverServices(byUUID: false)
        case 3: return .discoverCharacteristics
        case 4: return .discoverDescriptors
        case 5: return .setNotifications(GATTClientConfiguration(rawValue: UInt16(input.byte() % 4)))
        case 6: return .read(handle())
        case 7: return .write(input.take(Int(input.byte())), handle())
        case 8: return .writeWithoutResponse(input.take(Int(input.byte())), handle())
        case 9: return .concurrently(handle(), input.take(Int(input.byte())))
        case 10: return .subscribe(handle())
        default: return .close
        }
    }
}

let smpService = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!
let smpCharacteristic = BluetoothUUID(string: "DA2E7828-FBCE-4E01-AE9E-261174997C48")!

let quiet: Logger = {
    var logger = Logger(label: "fuzz-att-gatt")
    logger.logLevel = .critical
    return logger
}()

/// The program's state: what discovery found (later calls work on it) and the handles subscribed to.
/// Used from one task at a time (the program runs its calls in order on the virtual runtime).
final class Run: @unchecked Sendable {
    let client: GATTClient
    let timeout: Duration
    var service = GATTService(uuid: smpService, startHandle: 0x0001, endHandle: 0xFFFF)
    var characteristic = GATTCharacteristic(
        uuid: smpCharacteristic, declarationHandle: 0x0010, valueHandle: 0x0011, endHandle: 0x0013, properties: [.writeWithoutResponse, .notify])
    /// Handles whose values may reach the events: every handle ever subscribed to (before the call).
    var allowed: Set<UInt16> = []
    var closed = false

    init(client: GATTClient, timeout: Duration) {
        self.client = client
        self.timeout = timeout
    }

    func perform(_ call: Call) async {
        switch call {
        case .exchangeMTU:
            let offered = offeredMTU
            check(await result { () async throws(GATTError) in try await client.exchangeMTU() }, mustFail: closed) { mtu in
                precondition((GATTClient.defaultMTU...offered).contains(mtu), "ATT MTU \(mtu) outside 23...\(offered)")
            }
        case .discoverServices(let byUUID):
            let found = await result { () async throws(GATTError) in
                if byUUID { return try await client.discoverPrimaryServices(uuid: smpService) }
                return try await client.discoverPrimaryServices()
            }
            check(found, mustFail: closed) { services in
                for service in services {
                    precondition(service.startHandle >= 1 && service.endHandle >= service.startHandle, "service range \(service)")
                    if byUUID { precondition(service.uuid == smpService, "a service of another UUID: \(service)") }
                }
                if let first = services.first { self.service = first }
            }
        case .discoverCharacteristics:
            let service = self.service
            check(await result { () async throws(GATTError) in try await client.discoverCharacteristics(of: service) }, mustFail: closed) { found in
                for item in found {
                    precondition((service.startHandle...service.endHandle).contains(item.declarationHandle), "declaration outside the service")
                    precondition(item.valueHandle > item.declarationHandle && item.valueHandle <= service.endHandle, "value handle outside")
                    precondition(item.endHandle >= item.valueHandle && item.endHandle <= service.endHandle, "end handle outside")
                }
                precondition(zip(found, found.dropFirst()).allSatisfy { $0.declarationHandle <= $1.declarationHandle }, "unsorted")
                if let first = found.first { self.characteristic = first }
            }
        case .discoverDescriptors:
            let characteristic = self.characteristic
            check(await result { () async throws(GATTError) in try await client.discoverDescriptors(of: characteristic) }, mustFail: false) { found in
                for descriptor in found {
                    precondition(
                        descriptor.handle > characteristic.valueHandle && descriptor.handle <= characteristic.endHandle,
                        "descriptor \(descriptor.handle) outside \(characteristic)")
                }
            }
        case .setNotifications(let configuration):
            let characteristic = self.characteristic
            if !configuration.isEmpty { allowed.insert(characteristic.valueHandle) }
            check(
                await result { () async throws(GATTError) in try await client.setNotifications(configuration, for: characteristic) },
                mustFail: false
            ) { _ in }
        case .read(let handle):
            check(await result { () async throws(GATTError) in try await client.read(handle: handle) }, mustFail: closed) { value in
                precondition(value.count < client.bearer.maximumPDUSize, "a read value longer than the bearer carries")
            }
        case .write(let value, let handle):
            check(await result { () async throws(GATTError) in try await client.write(value, to: handle) }, mustFail: closed, value: value) { _ in }
        case .writeWithoutResponse(let value, let handle):
            check(
                await result { () async throws(GATTError) in try await client.writeWithoutResponse(value, to: handle) },
                mustFail: closed, value: value
            ) { _ in }
        case .concurrently(let handle, let value):
            // Three requests at once: the client serialises them; each ends on its own.
            let client = self.client
            let mustFail = closed
            async let read = result { () async throws(GATTError) in try await client.read(handle: handle) }
            async let write = result { () async throws(GATTError) in try await client.write(value, to: handle) }
            async let mtu = result { () async throws(GATTError) in try await client.exchangeMTU() }
            let outcomes = await (read, write, mtu)
            check(outcomes.0, mustFail: mustFail) { _ in }
            check(outcomes.1, mustFail: mustFail, value: value) { _ in }
            check(outcomes.2, mustFail: mustFail) { _ in }
        case .subscribe(let handle):
            allowed.insert(handle)
            await client.subscribe(valueHandle: handle)
        case .close:
            await client.close()
            closed = true
        }
        let isClosed = await client.isClosed
        precondition(!closed || isClosed, "the client is open after close() or a transaction timeout")
        let mtu = await client.mtu
        precondition((GATTClient.defaultMTU...offeredMTU).contains(mtu), "ATT MTU \(mtu) outside 23...\(offeredMTU)")
    }

    /// The largest MTU the client may end up with: its offer.
    var offeredMTU: Int {
        min(max(client.configuration.preferredMTU, GATTClient.defaultMTU), GATTClient.maximumMTU, client.bearer.maximumPDUSize)
    }

    /// Checks a call's outcome: a failure is typed and consistent with the client's state; a
    /// success is checked by `success`. After `close()`, requests must fail as closed.
    func check<T>(_ outcome: Result<T, GATTError>, mustFail: Bool, value: [UInt8]? = nil, success: (T) -> Void) {
        switch outcome {
        case .success(let result):
            precondition(!mustFail, "a request succeeded after close()")
            success(result)
        case .failure(let error):
            precondition(!error.description.isEmpty)
            switch error {
            case .timeout(_, let after):
                precondition(after == timeout, "a timeout after \(after), configured \(timeout)")
                // A transaction timeout closes the bearer: every later request fails as closed.
                closed = true
            case .valueTooLong(let size, let limit):
                precondition(size == value?.count && size > limit && limit >= GATTClient.defaultMTU - 3, "value too long: \(size) > \(limit)")
            case .closed:
                break
            default:
                precondition(!mustFail, "a request after close() failed otherwise than closed: \(error)")
            }
        }
    }
}

/// Runs a throwing call and keeps its outcome.
func result<T>(_ body: () async throws(GATTError) -> T) async -> Result<T, GATTError> {
    do throws(GATTError) {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// Decodes `bytes` as one PDU; what decodes re-encodes to bytes that decode to the same PDU (list
/// responses keep the entries of the first entry's width, as the encoder documents).
func checkDecoding(_ bytes: [UInt8]) {
    let pdu: ATTPDU
    do throws(ATTDecodingError) {
        pdu = try ATTPDU(decoding: bytes)
    } catch {
        precondition((error.opcode == nil) == bytes.isEmpty, "an error without an opcode for a non-empty PDU")
        precondition(!error.description.isEmpty)
        return
    }
    precondition(pdu.opcode.rawValue == bytes[0], "decoded as another opcode")
    let encoded = pdu.bytes
    precondition(encoded.count <= bytes.count, "re-encoding grew the PDU")
    guard let again = try? ATTPDU(decoding: encoded) else { fatalError("the encoding of \(pdu) does not decode") }
    if case .findInformationResponse(let entries) = pdu {
        let width = entries.first?.type.littleEndianBytes.count
        precondition(again == .findInformationResponse(entries.filter { $0.type.littleEndianBytes.count == width }), "find information round trip")
    } else {
        precondition(again == pdu, "\(pdu) re-encodes to \(again)")
    }
}
