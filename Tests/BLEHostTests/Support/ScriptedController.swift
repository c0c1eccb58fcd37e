import BLEHost
import GATT
import NIOConcurrencyHelpers

/// An HCI controller written for the tests, in process over a ``MemoryHCITransport``: it answers
/// the host's set-up commands as a plain LE controller does, and otherwise does what the test
/// scripts — floods, crowds, never answers. Everything it sees is counted in ``log``.
final class ScriptedController: Sendable {
    let transport = MemoryHCITransport(capacity: 64)
    /// What the controller saw and did.
    let log = NIOLockedValueBox(Log())

    struct Log: Sendable {
        /// Every command the host sent, by opcode, in order.
        var commands: [UInt16] = []
        /// Disconnect commands, by handle.
        var disconnects: [UInt16] = []
        /// Whether the host enabled scanning (last LE Set Scan Enable).
        var scanning = false
    }

    /// What to answer to a Disconnect: a Command Status and a Disconnection Complete, a Command
    /// Status only, or nothing at all.
    enum DisconnectAnswer: Sendable { case complete, statusOnly, none }

    let disconnectAnswer: DisconnectAnswer
    /// Called (on the controller's task) when the host enables scanning.
    let onScanEnabled: @Sendable (ScriptedController) async -> Void
    /// Called after the Command Status for LE Create Connection, with its parameters; nil completes nothing.
    let onCreateConnection: (@Sendable (ScriptedController, [UInt8]) async -> Void)?

    init(
        disconnectAnswer: DisconnectAnswer = .complete, onCreateConnection: (@Sendable (ScriptedController, [UInt8]) async -> Void)? = nil,
        onScanEnabled: @escaping @Sendable (ScriptedController) async -> Void = { _ in }
    ) {
        self.disconnectAnswer = disconnectAnswer
        self.onCreateConnection = onCreateConnection
        self.onScanEnabled = onScanEnabled
    }

    /// Starts answering on `clock`'s executor until the link ends.
    func start(on clock: HostClock) {
        clock.task { [self] in
            for await packet in transport.outbound {
                guard case .command(let opcode, let parameters) = packet else { continue }
                log.withLockedValue { $0.commands.append(opcode) }
                await answer(opcode: opcode, parameters: parameters)
            }
        }
    }

    private func answer(opcode: UInt16, parameters: [UInt8]) async {
        switch opcode {
        case 0x1001:  // Read Local Version: status, HCI version 9, revision, LMP 9, manufacturer 0xFFFF, subversion.
            await send(Self.commandComplete(opcode, [0x00, 0x09, 0x00, 0x00, 0x09, 0xFF, 0xFF, 0x00, 0x00]))
        case 0x2060:  // LE Read Buffer Size v2: 251 bytes × 8, no ISO buffers.
            await send(Self.commandComplete(opcode, [0x00, 0xFB, 0x00, 0x08, 0x00, 0x00, 0x00]))
        case 0x2003:  // LE features: DLE and 2M.
            await send(Self.commandComplete(opcode, [0x00, 0x20, 0x01, 0, 0, 0, 0, 0, 0]))
        case 0x200C:
            let enable = parameters.first == 1
            log.withLockedValue { $0.scanning = enable }
            await send(Self.commandComplete(opcode, [0x00]))
            if enable { await onScanEnabled(self) }
        case 0x0406:
            let handle = parameters.count >= 2 ? (UInt16(parameters[0]) | UInt16(parameters[1]) << 8) : 0
            log.withLockedValue { $0.disconnects.append(handle) }
            switch disconnectAnswer {
            case .none: break
            case .statusOnly: await send(Self.commandStatus(opcode))
            case .complete:
                await send(Self.commandStatus(opcode))
                await send(.event(code: 0x05, parameters: [0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x16]))
            }
        case 0x200D:
            await send(Self.commandStatus(opcode))
            await onCreateConnection?(self, parameters)
        case 0x2013, 0x2032:  // Answered by Command Status.
            await send(Self.commandStatus(opcode))
        default:
            await send(Self.commandComplete(opcode, [0x00]))
        }
    }

    /// Sends one packet to the host (waiting while the host has the link's capacity unread).
    func send(_ packet: HCIPacket) async {
        await transport.deliver(packet)
    }

    // MARK: Events, built byte by byte from the Core spec (Vol 4 Part E 7.7)

    static func commandComplete(_ opcode: UInt16, _ returnParameters: [UInt8]) -> HCIPacket {
        .event(code: 0x0E, parameters: [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + returnParameters)
    }

    static func commandStatus(_ opcode: UInt16, status: UInt8 = 0) -> HCIPacket {
        .event(code: 0x0F, parameters: [status, 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)])
    }

    /// LE Connection Complete, success, with this host as central (role 0) unless `asPeripheral`.
    static func connectionComplete(handle: UInt16, peer: LEAddress, asPeripheral: Bool = false) -> HCIPacket {
        var p: [UInt8] = [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), asPeripheral ? 1 : 0, peer.kind.rawValue]
        p += peer.wireBytes
        p += [0x06, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00]
        return .event(code: 0x3E, parameters: p)
    }

    /// One LE Advertising Report of `type` (0 connectable, 4 scan response) from `address` with `data`.
    static func advertisingReport(_ address: LEAddress, data: AdvertisingData, type: UInt8 = 0, rssi: Int8 = -60) -> HCIPacket {
        var p: [UInt8] = [0x02, 0x01, type, address.kind.rawValue]
        p += address.wireBytes
        p.append(UInt8(data.bytes.count))
        p += data.bytes
        p.append(UInt8(bitPattern: rssi))
        return .event(code: 0x3E, parameters: p)
    }

    /// A random static address numbered `n` (distinct for every `n` below 2^32).
    static func address(_ n: Int) -> LEAddress {
        LEAddress(bytes: [0xC0, 0x01, UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)], kind: .random)!
    }
}
