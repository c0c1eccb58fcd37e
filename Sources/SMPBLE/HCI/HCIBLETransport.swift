import Logging
import SMP

/// SMP over GATT through our own LE host on an HCI controller: ``BLETransport`` on the ATT
/// bearers an ``HCISession`` makes, closing the controller when the transport closes.
///
/// A device that insists on pairing (its CCCD or characteristic needs an encrypted link) fails to
/// connect with a message that says so: this host does not pair or encrypt.
public final class HCIBLETransport: SMPTransport {
    /// The controller and the device this transport reaches; closed with the transport.
    public let session: HCISession
    private let transport: BLETransport

    /// Makes a transport (not yet connected) to the device `session` finds, SMP over GATT as `configuration` says.
    public init(
        session: HCISession, configuration: BLETransport.Configuration = BLETransport.Configuration(), clock: SMPClock = .continuous,
        logger: Logger = Logger(label: "smp.ble")
    ) {
        self.session = session
        self.transport = BLETransport(
            connector: BLEConnector(session.description) { () async throws(BLEError) in try await session.makeBearer() },
            configuration: configuration, clock: clock, logger: logger)
    }

    /// The largest SMP packet the link takes (the device's reassembly buffer, or what the ATT MTU allows).
    public var maximumPacketSize: Int { get async { await transport.maximumPacketSize } }
    /// The link's own unit: the ATT MTU less its 3-byte header.
    public var linkUnit: Int { get async { await transport.linkUnit } }
    /// Received packets and disconnects.
    public var events: SMPTransportEvents { transport.events }

    /// Opens the controller (once), finds the device, connects and sets up SMP over GATT.
    public func connect() async throws(SMPTransportError) {
        do {
            try await transport.connect()
        } catch {
            if let security = session.securityRequired {
                throw .unreachable("\(security); pair it through BlueZ (--ble with --ble-security medium) or build the device with CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW (no authentication)")
            }
            throw error
        }
    }

    /// Sends one SMP packet, in as many ATT writes as the MTU needs.
    public func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        try await transport.send(packet)
    }

    /// Disconnects and closes the controller.
    public func close() async {
        await transport.close()
        await session.close()
    }

    /// The device's `buf_size`, for ``BLETransport`` to size packets by (when the device reassembles writes).
    public func setDeviceBufferSize(_ size: Int?) async {
        await transport.setDeviceBufferSize(size)
    }
}
