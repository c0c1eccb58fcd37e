/// One L2CAP basic-mode PDU: the channel it travels on and its payload.
public struct L2CAPPDU: Sendable, Hashable {
    /// The channel: 0x0004 ATT, 0x0005 LE signalling, 0x0006 Security Manager.
    public var channel: UInt16
    /// The payload.
    public var payload: [UInt8]

    /// Makes a PDU.
    public init(channel: UInt16, payload: [UInt8]) {
        self.channel = channel
        self.payload = payload
    }

    /// The PDU with its basic header (length, channel), as the first fragment starts.
    public var bytes: [UInt8] {
        var b: [UInt8] = []
        b.reserveCapacity(4 + payload.count)
        b.appendLE(UInt16(payload.count))
        b.appendLE(channel)
        return b + payload
    }

    /// The PDU cut into ACL packets of at most `fragmentSize` data bytes: a start, then continuations.
    public func fragments(handle: UInt16, fragmentSize: Int) -> [ACLDataPacket] {
        let all = bytes
        let size = max(1, fragmentSize)
        return stride(from: 0, to: all.count, by: size).map { offset in
            ACLDataPacket(
                handle: handle, boundary: offset == 0 ? .firstNonFlushable : .continuation,
                data: Array(all[offset..<min(offset + size, all.count)]))
        }
    }
}

/// What ``L2CAPReassembler`` makes of an ACL packet.
public enum L2CAPReassemblyEvent: Sendable, Hashable {
    /// A whole PDU.
    case pdu(handle: UInt16, L2CAPPDU)
    /// Bytes that were dropped, and why (logged by the host, never fatal).
    case dropped(HCIDecodingError)
}

/// Joins ACL fragments into L2CAP PDUs, one PDU in progress per connection handle.
///
/// Bounded by the channel MTU: a PDU whose header announces more than ``maximumPDUSize`` payload
/// bytes is dropped (its continuations are skipped as they come), and no buffer ever holds more
/// than one fragment past that. Fragments for handles not opened with ``open(handle:)``,
/// continuations without a start, and fragments that overshoot the header's length are dropped
/// with a typed reason.
public struct L2CAPReassembler: Sendable {
    /// The largest L2CAP payload accepted (the channels' MTU).
    public let maximumPDUSize: Int

    private struct Partial: Sendable {
        var bytes: [UInt8] = []
        var expected: Int?
        /// Bytes still to skip of a PDU being dropped (nil while not dropping).
        var skipping: Int?
    }

    private var partials: [UInt16: Partial] = [:]

    /// Makes a reassembler that accepts PDUs of up to `maximumPDUSize` payload bytes.
    public init(maximumPDUSize: Int = 517) {
        self.maximumPDUSize = max(0, maximumPDUSize)
    }

    /// Starts accepting fragments for `handle` (a new connection).
    public mutating func open(handle: UInt16) {
        partials[handle & 0x0FFF] = Partial()
    }

    /// Stops accepting fragments for `handle` and drops its PDU in progress; returns the bytes dropped.
    @discardableResult
    public mutating func close(handle: UInt16) -> Int {
        partials.removeValue(forKey: handle & 0x0FFF)?.bytes.count ?? 0
    }

    /// Whether fragments for `handle` are accepted.
    public func isOpen(handle: UInt16) -> Bool { partials[handle & 0x0FFF] != nil }

    /// Bytes of incomplete PDUs held now, over all handles.
    public var bufferedCount: Int { partials.values.reduce(0) { $0 + $1.bytes.count } }

    /// Takes one ACL packet, calling `output` with the PDU it completes or with what was dropped.
    public mutating func append(_ packet: ACLDataPacket, _ output: (L2CAPReassemblyEvent) -> Void) {
        let handle = packet.handle
        guard var partial = partials[handle] else {
            output(.dropped(.unknownHandle(handle)))
            return
        }
        defer { partials[handle] = partial }
        if packet.boundary.isStart {
            if !partial.bytes.isEmpty {
                output(.dropped(.startDuringPDU(handle: handle, dropped: partial.bytes.count)))
            }
            partial = Partial()
            partial.bytes = packet.data
        } else {
            if let skipping = partial.skipping {
                let left = skipping - packet.data.count
                partial.skipping = left > 0 ? left : nil
                if left < 0 { output(.dropped(.fragmentOverrun(handle: handle, expected: skipping, received: packet.data.count))) }
                return
            }
            guard !partial.bytes.isEmpty else {
                output(.dropped(.continuationWithoutStart(handle: handle)))
                return
            }
            partial.bytes += packet.data
        }
        if partial.expected == nil, partial.bytes.count >= 4 {
            let length = Int(partial.bytes[0]) | Int(partial.bytes[1]) << 8
            guard length <= maximumPDUSize else {
                output(.dropped(.pduTooLarge(length: length, limit: maximumPDUSize)))
                let left = length + 4 - partial.bytes.count
                partial = Partial()
                partial.skipping = left > 0 ? left : nil
                return
            }
            partial.expected = length + 4
        }
        guard let expected = partial.expected, partial.bytes.count >= expected else { return }
        if partial.bytes.count > expected {
            output(.dropped(.fragmentOverrun(handle: handle, expected: expected - 4, received: partial.bytes.count - 4)))
        } else {
            let channel = UInt16(partial.bytes[2]) | UInt16(partial.bytes[3]) << 8
            output(.pdu(handle: handle, L2CAPPDU(channel: channel, payload: Array(partial.bytes[4...]))))
        }
        partial = Partial()
    }
}
