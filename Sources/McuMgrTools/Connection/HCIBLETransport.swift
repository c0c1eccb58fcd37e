import Logging
import SMP
import SMPBLE

/// SMP over GATT through our own LE host on an HCI controller: `SMPBLE`'s transport on the ATT
/// bearers an ``HCISession`` makes, closing the controller when the transport closes.
///
/// A device that insists on pairing (its CCCD or characteristic needs an encrypted link) fails to
/// connect with a message that says so: this host does not pair or encrypt.
final class HCIBLETransport: SMPTransport {
    let session: HCISession
    let transport: BLETransport

    init(session: HCISession, configuration: BLETransport.Configuration, clock: SMPClock, logger: Logger) {
        self.session = session
        self.transport = BLETransport(
            connector: BLEConnector(session.description) { () async throws(BLEError) in try await session.makeBearer() },
            configuration: configuration, clock: clock, logger: logger)
    }

    var maximumPacketSize: Int { get async { await transport.maximumPacketSize } }
    var linkUnit: Int { get async { await transport.linkUnit } }
    var events: SMPTransportEvents { transport.events }

    func connect() async throws(SMPTransportError) {
        do {
            try await transport.connect()
        } catch {
            if let security = session.securityRequired {
                throw .unreachable("\(security); pair it through BlueZ (--ble with security=medium) or build the device without CONFIG_MCUMGR_TRANSPORT_BT_AUTHEN")
            }
            throw error
        }
    }

    func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        try await transport.send(packet)
    }

    func close() async {
        await transport.close()
        await session.close()
    }

    /// The device's `buf_size`, for `SMPBLE`'s transport to size packets by (when the device reassembles writes).
    func setDeviceBufferSize(_ size: Int?) async {
        await transport.setDeviceBufferSize(size)
    }
}
