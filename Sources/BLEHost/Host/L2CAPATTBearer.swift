import GATT

/// The ATT channel (L2CAP fixed channel 4) of an ``LEConnection`` as an `ATTBearer`: one PDU in,
/// one PDU out, exactly as over a BlueZ L2CAP socket, so the GATT client and `SMPBLE` run unchanged.
///
/// PDUs are fragmented to the controller's ACL size and sent under its flow control (a send waits
/// for buffers, never drops); received PDUs are reassembled and bounded by ``maximumPDUSize``.
/// Closing the bearer disconnects the connection (with ``disconnectReason``); `inbound` ends with
/// `.closed` when it ends.
public final class L2CAPATTBearer: ATTBearer {
    /// PDUs from the peer in arrival order, then `.closed` once.
    public let inbound: AsyncStream<ATTBearerEvent>
    /// The largest ATT PDU carried (the channel's MTU).
    public let maximumPDUSize: Int

    /// The connection whose channel this is.
    public let connection: LEConnection
    /// The reason ``close()`` gives the peer in its HCI Disconnect.
    public let disconnectReason: HCIStatus

    init(connection: LEConnection, maximumPDUSize: Int, disconnectReason: HCIStatus) {
        self.connection = connection
        self.maximumPDUSize = maximumPDUSize
        self.disconnectReason = disconnectReason
        let inbox = connection.inbox
        self.inbound = AsyncStream(unfolding: { await inbox.next() })
    }

    /// Sends one ATT PDU on channel 4.
    public func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        guard pdu.count <= maximumPDUSize else { throw .pduTooLarge(size: pdu.count, limit: maximumPDUSize) }
        do {
            try await connection.send(L2CAPPDU(channel: 0x0004, payload: pdu))
        } catch {
            switch error {
            case .disconnected(let reason), .closed(let reason): throw .closed(reason: reason)
            default: throw .io(error.description)
            }
        }
    }

    /// Disconnects with ``disconnectReason``; `inbound` then ends with `.closed`.
    public func close() async {
        await connection.disconnect(reason: disconnectReason)
    }
}
