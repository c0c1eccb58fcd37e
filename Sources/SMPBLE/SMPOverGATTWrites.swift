import SMP

/// How an SMP packet goes over GATT, for every transport that writes the SMP characteristic: one
/// Write Command carries at most ATT_MTU − 3 bytes, and a packet longer than one write is sent as
/// consecutive writes only when the device reassembles them (up to its `buf_size`).
enum SMPOverGATTWrites {
    /// The largest SMP packet: the device's reassembly buffer when it is known and larger than
    /// one write, else ATT_MTU − 3.
    static func packetLimit(mtu: Int, reassemblyBuffer: Int?) -> Int {
        max(mtu - 3, reassemblyBuffer ?? 0)
    }

    /// The consecutive writes that carry `packet`, each at most ATT_MTU − 3 bytes; a packet past
    /// ``packetLimit(mtu:reassemblyBuffer:)`` is refused.
    static func writes(of packet: [UInt8], mtu: Int, reassemblyBuffer: Int?) throws(SMPTransportError) -> [ArraySlice<UInt8>] {
        let limit = packetLimit(mtu: mtu, reassemblyBuffer: reassemblyBuffer)
        guard packet.count <= limit else { throw .packetTooLarge(size: packet.count, limit: limit) }
        let unit = mtu - 3
        return stride(from: 0, to: max(packet.count, 1), by: unit).map { packet[$0..<min($0 + unit, packet.count)] }
    }
}
