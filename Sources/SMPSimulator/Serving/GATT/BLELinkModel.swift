/// A Bluetooth LE link as the simulated peripheral paces it: PHY, data length extension,
/// connection interval, packets per connection event and the device's link-layer buffers.
///
/// Every ATT PDU travels as an L2CAP PDU (4-byte header) cut into link-layer data packets of
/// ``linkLayerPayload`` bytes. One packet costs ``packetTime``: the data PDU on air, T_IFS
/// (150 µs), the peer's empty PDU and T_IFS again (no encryption). A connection event every
/// ``connectionInterval`` carries at most ``packetsPerEvent`` packets in each direction.
public struct BLELinkModel: Sendable, Hashable, CustomStringConvertible {
    /// The physical layer.
    public enum PHY: String, Sendable, Hashable {
        /// LE 1M: 1 Mbit/s, 1-byte preamble.
        case le1M = "1M"
        /// LE 2M: 2 Mbit/s, 2-byte preamble.
        case le2M = "2M"

        /// Microseconds per byte on air.
        var microsecondsPerByte: Int { self == .le1M ? 8 : 4 }
        /// Preamble, access address, header and CRC bytes around a data PDU's payload.
        var overheadBytes: Int { self == .le1M ? 10 : 11 }
    }

    /// The PHY.
    public var phy: PHY
    /// Data length extension: 251-byte link-layer payloads instead of 27.
    public var dataLengthExtension: Bool
    /// Time between connection events (7.5 ms to 4 s).
    public var connectionInterval: Duration
    /// The most data packets the controller sends in one connection event, per direction.
    public var packetsPerConnectionEvent: Int
    /// The device's link-layer buffers: packets it holds for one connection event, per direction.
    public var deviceBuffers: Int

    /// Makes a link model; by default 1M PHY without DLE, 30 ms interval, 4 packets per event, 4 buffers.
    public init(
        phy: PHY = .le1M, dataLengthExtension: Bool = false, connectionInterval: Duration = .milliseconds(30),
        packetsPerConnectionEvent: Int = 4, deviceBuffers: Int = 4
    ) {
        self.phy = phy
        self.dataLengthExtension = dataLengthExtension
        self.connectionInterval = max(connectionInterval, .microseconds(7500))
        self.packetsPerConnectionEvent = max(1, packetsPerConnectionEvent)
        self.deviceBuffers = max(1, deviceBuffers)
    }

    /// A fast link: 2M PHY, DLE, 7.5 ms interval, 6 packets per event and 6 buffers.
    public static let fast = BLELinkModel(
        phy: .le2M, dataLengthExtension: true, connectionInterval: .microseconds(7500), packetsPerConnectionEvent: 6, deviceBuffers: 6)

    /// Bytes of one link-layer data packet's payload: 251 with DLE, else 27.
    public var linkLayerPayload: Int { dataLengthExtension ? 251 : 27 }

    /// Air time of one full data packet, the empty answer and both inter-frame spaces.
    public var packetTime: Duration {
        let data = (linkLayerPayload + phy.overheadBytes) * phy.microsecondsPerByte
        let empty = phy.overheadBytes * phy.microsecondsPerByte
        return .microseconds(data + 150 + empty + 150)
    }

    /// Packets one connection event carries per direction: the controller's and the device's
    /// limits, and what fits in the interval (at least one).
    public var packetsPerEvent: Int {
        let fit = Int(connectionInterval / packetTime)
        return max(1, min(packetsPerConnectionEvent, deviceBuffers, fit))
    }

    /// Link-layer packets one ATT PDU of `size` bytes takes (with its 4-byte L2CAP header).
    public func linkLayerPackets(forATTPDU size: Int) -> Int {
        (size + 4 + linkLayerPayload - 1) / linkLayerPayload
    }

    /// The ceiling in bytes per second of attribute values (Write Command or notification values)
    /// at ATT_MTU `mtu`, when every connection event is full.
    public func throughputLimit(mtu: Int) -> Double {
        let packets = Double(linkLayerPackets(forATTPDU: mtu))
        let perSecond = Double(packetsPerEvent) / connectionInterval.seconds
        return Double(mtu - 3) * perSecond / packets
    }

    /// E.g. `2M PHY, DLE, 7.5 ms interval, 5 packets per event`.
    public var description: String {
        let interval = Double(connectionInterval.components.attoseconds) / 1e15 + Double(connectionInterval.components.seconds) * 1000
        return "\(phy.rawValue) PHY, \(dataLengthExtension ? "DLE" : "no DLE"), \(interval) ms interval, \(packetsPerEvent) packets per event"
    }
}
