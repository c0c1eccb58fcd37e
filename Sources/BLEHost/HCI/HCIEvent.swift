/// An HCI event from the controller, decoded as far as this host uses it.
public enum HCIEvent: Sendable, Hashable {
    /// A command finished: how many commands the controller now takes, the opcode, its return parameters.
    case commandComplete(credits: UInt8, opcode: UInt16, returnParameters: [UInt8])
    /// A command was accepted (status success) or refused; its result comes in a later event.
    case commandStatus(status: HCIStatus, credits: UInt8, opcode: UInt16)
    /// A connection ended.
    case disconnectionComplete(status: HCIStatus, handle: UInt16, reason: HCIStatus)
    /// The controller sent (or flushed) ACL packets: a count per connection handle.
    case numberOfCompletedPackets([CompletedPackets])
    /// The controller failed.
    case hardwareError(code: UInt8)
    /// The controller's ACL buffers overflowed (the host sent more than its credits).
    case dataBufferOverflow(linkType: UInt8)
    /// Encryption was turned on or off on a connection.
    case encryptionChange(status: HCIStatus, handle: UInt16, enabled: Bool)
    /// An LE subevent.
    case le(LEMetaEvent)
    /// Any other event, kept as it arrived.
    case unknown(code: UInt8, parameters: [UInt8])

    /// Decodes one event from its code and parameters; a parameter block shorter than the event
    /// needs, or a count that runs past it, throws.
    public static func decode(code: UInt8, parameters: [UInt8]) throws(HCIDecodingError) -> HCIEvent {
        var r = ByteReader(parameters, what: "HCI event 0x\(hex(code))")
        switch code {
        case 0x0E:
            let credits = try r.u8()
            let opcode = try r.u16()
            return .commandComplete(credits: credits, opcode: opcode, returnParameters: Array(r.rest()))
        case 0x0F:
            let status = HCIStatus(rawValue: try r.u8())
            let credits = try r.u8()
            return .commandStatus(status: status, credits: credits, opcode: try r.u16())
        case 0x05:
            let status = HCIStatus(rawValue: try r.u8())
            let handle = try r.u16() & 0x0FFF
            return .disconnectionComplete(status: status, handle: handle, reason: HCIStatus(rawValue: try r.u8()))
        case 0x13:
            let count = Int(try r.u8())
            guard count * 4 <= r.remaining else {
                throw .lengthPastEnd(what: "Number Of Completed Packets", length: count * 4, available: r.remaining)
            }
            var entries: [CompletedPackets] = []
            for _ in 0..<count {
                let handle = try r.u16() & 0x0FFF
                entries.append(CompletedPackets(handle: handle, count: try r.u16()))
            }
            return .numberOfCompletedPackets(entries)
        case 0x10:
            return .hardwareError(code: try r.u8())
        case 0x1A:
            return .dataBufferOverflow(linkType: try r.u8())
        case 0x08:
            let status = HCIStatus(rawValue: try r.u8())
            let handle = try r.u16() & 0x0FFF
            return .encryptionChange(status: status, handle: handle, enabled: try r.u8() != 0)
        case 0x3E:
            return .le(try LEMetaEvent.decode(parameters[...]))
        default:
            return .unknown(code: code, parameters: parameters)
        }
    }
}

/// One entry of a Number Of Completed Packets event.
public struct CompletedPackets: Sendable, Hashable {
    /// The connection handle.
    public var handle: UInt16
    /// How many ACL packets of that handle the controller sent or flushed.
    public var count: UInt16

    /// Makes an entry.
    public init(handle: UInt16, count: UInt16) {
        self.handle = handle
        self.count = count
    }
}

/// The LE subevents this host reads (Core spec Vol 4 Part E 7.7.65).
public enum LEMetaEvent: Sendable, Hashable {
    /// A connection was made (or failed): LE Connection Complete (0x01) or Enhanced (0x0A).
    case connectionComplete(LEConnectionComplete)
    /// Advertising reports (0x02).
    case advertisingReports([AdvertisingReport])
    /// A connection's parameters changed (0x03).
    case connectionUpdateComplete(status: HCIStatus, handle: UInt16, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    /// The peer's LE features were read (0x04).
    case remoteFeaturesComplete(status: HCIStatus, handle: UInt16, features: UInt64)
    /// The peer asks for other connection parameters through the link layer (0x06).
    case remoteConnectionParameterRequest(handle: UInt16, minimumInterval: UInt16, maximumInterval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    /// The link-layer payload sizes changed (0x07).
    case dataLengthChange(handle: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16)
    /// The PHY changed (0x0C): 1 is 1M, 2 is 2M, 3 is Coded.
    case phyUpdateComplete(status: HCIStatus, handle: UInt16, txPHY: UInt8, rxPHY: UInt8)
    /// Any other subevent, kept as it arrived.
    case unknown(subevent: UInt8, parameters: [UInt8])

    /// Decodes the parameters of an LE Meta event (subevent code first).
    public static func decode(_ parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> LEMetaEvent {
        var r = ByteReader(parameters, what: "LE Meta event")
        let subevent = try r.u8()
        r = ByteReader(r.rest(), what: "LE subevent 0x\(hex(subevent))")
        switch subevent {
        case 0x01, 0x0A:
            let status = HCIStatus(rawValue: try r.u8())
            let handle = try r.u16() & 0x0FFF
            let role = try r.u8()
            let kind: LEAddress.Kind = try r.u8() & 0x01 == 0 ? .public : .random
            let peer = LEAddress(wire: try r.bytes(6), kind: kind)
            if subevent == 0x0A { _ = try r.bytes(12) }
            let interval = try r.u16()
            let latency = try r.u16()
            let timeout = try r.u16()
            _ = try r.u8()
            return .connectionComplete(LEConnectionComplete(
                status: status, handle: handle, isCentral: role == 0, peer: peer, interval: interval, latency: latency,
                supervisionTimeout: timeout))
        case 0x02:
            return .advertisingReports(try AdvertisingReport.decodeAll(r.rest()))
        case 0x03:
            let status = HCIStatus(rawValue: try r.u8())
            let handle = try r.u16() & 0x0FFF
            let interval = try r.u16()
            let latency = try r.u16()
            return .connectionUpdateComplete(status: status, handle: handle, interval: interval, latency: latency, supervisionTimeout: try r.u16())
        case 0x04:
            let status = HCIStatus(rawValue: try r.u8())
            let handle = try r.u16() & 0x0FFF
            return .remoteFeaturesComplete(status: status, handle: handle, features: try r.u64())
        case 0x06:
            let handle = try r.u16() & 0x0FFF
            let minimum = try r.u16()
            let maximum = try r.u16()
            let latency = try r.u16()
            return .remoteConnectionParameterRequest(
                handle: handle, minimumInterval: minimum, maximumInterval: maximum, latency: latency, supervisionTimeout: try r.u16())
        case 0x07:
            let handle = try r.u16() & 0x0FFF
            let txOctets = try r.u16()
            let txTime = try r.u16()
            let rxOctets = try r.u16()
            return .dataLengthChange(handle: handle, maxTxOctets: txOctets, maxTxTime: txTime, maxRxOctets: rxOctets, maxRxTime: try r.u16())
        case 0x0C:
            let status = HCIStatus(rawValue: try r.u8())
            let handle = try r.u16() & 0x0FFF
            let tx = try r.u8()
            return .phyUpdateComplete(status: status, handle: handle, txPHY: tx, rxPHY: try r.u8())
        default:
            return .unknown(subevent: subevent, parameters: Array(r.rest()))
        }
    }
}

/// The fields of an LE (Enhanced) Connection Complete event.
public struct LEConnectionComplete: Sendable, Hashable {
    /// Success, or why the connection failed (e.g. cancelled, no answer).
    public var status: HCIStatus
    /// The new connection's handle.
    public var handle: UInt16
    /// Whether this side is the central.
    public var isCentral: Bool
    /// The peer's address.
    public var peer: LEAddress
    /// The connection interval in units of 1.25 ms.
    public var interval: UInt16
    /// The peripheral latency in connection events.
    public var latency: UInt16
    /// The supervision timeout in units of 10 ms.
    public var supervisionTimeout: UInt16
}
