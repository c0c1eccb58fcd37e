/// An HCI command this host sends: its opcode and parameters, and a name for logs and errors.
public struct HCICommand: Sendable, Hashable, CustomStringConvertible {
    /// OGF << 10 | OCF.
    public let opcode: UInt16
    /// The parameters (at most 255 bytes).
    public let parameters: [UInt8]
    /// Whether the controller answers with Command Status (the result comes later) instead of Command Complete.
    public let answeredByStatus: Bool

    /// Makes a command.
    public init(opcode: UInt16, parameters: [UInt8] = [], answeredByStatus: Bool = false) {
        self.opcode = opcode
        self.parameters = parameters
        self.answeredByStatus = answeredByStatus
    }

    /// The command as an HCI packet.
    public var packet: HCIPacket { .command(opcode: opcode, parameters: parameters) }

    /// The spec's name, e.g. `LE Set Scan Enable (0x200C)`.
    public var description: String { Self.name(of: opcode) }

    /// The spec's name of an opcode, e.g. `Reset (0x0C03)`.
    public static func name(of opcode: UInt16) -> String {
        "\(names[opcode] ?? "HCI command") (0x\(hex(opcode)))"
    }

    private static let names: [UInt16: String] = [
        0x0406: "Disconnect", 0x0C01: "Set Event Mask", 0x0C03: "Reset", 0x1001: "Read Local Version Information",
        0x1005: "Read Buffer Size", 0x1009: "Read BD_ADDR", 0x2001: "LE Set Event Mask", 0x2002: "LE Read Buffer Size",
        0x2003: "LE Read Local Supported Features", 0x2005: "LE Set Random Address", 0x2006: "LE Set Advertising Parameters",
        0x2008: "LE Set Advertising Data", 0x2009: "LE Set Scan Response Data", 0x200A: "LE Set Advertising Enable", 0x200B: "LE Set Scan Parameters",
        0x200C: "LE Set Scan Enable", 0x200D: "LE Create Connection", 0x200E: "LE Create Connection Cancel",
        0x2013: "LE Connection Update", 0x2020: "LE Remote Connection Parameter Request Reply",
        0x2021: "LE Remote Connection Parameter Request Negative Reply", 0x2022: "LE Set Data Length",
        0x2032: "LE Set PHY", 0x2060: "LE Read Buffer Size v2",
    ]

    // MARK: Controller setup

    /// Reset (Vol 4 Part E 7.3.2).
    public static let reset = HCICommand(opcode: 0x0C03)
    /// Read Local Version Information (7.4.1).
    public static let readLocalVersion = HCICommand(opcode: 0x1001)
    /// Read Buffer Size (7.4.5): the shared ACL buffers, used when the LE ones are 0.
    public static let readBufferSize = HCICommand(opcode: 0x1005)
    /// LE Read Buffer Size v1 (7.8.2).
    public static let leReadBufferSize = HCICommand(opcode: 0x2002)
    /// LE Read Buffer Size v2 (7.8.2), which adds the ISO buffers.
    public static let leReadBufferSizeV2 = HCICommand(opcode: 0x2060)
    /// LE Read Local Supported Features (7.8.3).
    public static let leReadLocalSupportedFeatures = HCICommand(opcode: 0x2003)

    /// Set Event Mask (7.3.1).
    public static func setEventMask(_ mask: UInt64) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(mask)
        return HCICommand(opcode: 0x0C01, parameters: p)
    }

    /// LE Set Event Mask (7.8.1).
    public static func leSetEventMask(_ mask: UInt64) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(mask)
        return HCICommand(opcode: 0x2001, parameters: p)
    }

    /// LE Set Random Address (7.8.4).
    public static func leSetRandomAddress(_ address: LEAddress) -> HCICommand {
        HCICommand(opcode: 0x2005, parameters: address.wireBytes)
    }

    // MARK: Scanning and connecting

    /// LE Set Scan Parameters (7.8.10): active or passive, interval and window in 0.625 ms units.
    public static func leSetScanParameters(active: Bool, interval: UInt16, window: UInt16, ownAddress: LEAddress.Kind) -> HCICommand {
        var p: [UInt8] = [active ? 0x01 : 0x00]
        p.appendLE(interval)
        p.appendLE(window)
        p += [ownAddress.rawValue, 0x00]
        return HCICommand(opcode: 0x200B, parameters: p)
    }

    /// LE Set Scan Enable (7.8.11).
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(opcode: 0x200C, parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    /// LE Create Connection (7.8.12), answered by Command Status; LE Connection Complete follows.
    public static func leCreateConnection(peer: LEAddress, ownAddress: LEAddress.Kind, parameters: LEConnectionParameters) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(parameters.scanInterval)
        p.appendLE(parameters.scanWindow)
        p.append(0x00)  // initiator filter policy: the peer address given
        p.append(peer.kind.rawValue)
        p += peer.wireBytes
        p.append(ownAddress.rawValue)
        p += parameters.connectionBytes
        return HCICommand(opcode: 0x200D, parameters: p, answeredByStatus: true)
    }

    /// LE Create Connection Cancel (7.8.13).
    public static let leCreateConnectionCancel = HCICommand(opcode: 0x200E)

    /// Disconnect (7.1.6), answered by Command Status; Disconnection Complete follows.
    public static func disconnect(handle: UInt16, reason: HCIStatus) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        p.append(reason.rawValue)
        return HCICommand(opcode: 0x0406, parameters: p, answeredByStatus: true)
    }

    // MARK: Advertising

    /// LE Set Advertising Parameters (7.8.5): connectable, scannable, undirected advertising
    /// (`ADV_IND`) every `minimumInterval` to `maximumInterval` (0.625 ms units) on all three
    /// advertising channels, from the `ownAddress` kind, accepting every scanner and initiator.
    public static func leSetAdvertisingParameters(minimumInterval: UInt16, maximumInterval: UInt16, ownAddress: LEAddress.Kind) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(minimumInterval)
        p.appendLE(maximumInterval)
        p += [0x00, ownAddress.rawValue]
        p += [0x00, 0, 0, 0, 0, 0, 0]  // peer address type and address: only for directed advertising
        p += [0x07, 0x00]  // channels 37, 38 and 39; no filter
        return HCICommand(opcode: 0x2006, parameters: p)
    }

    /// LE Set Advertising Data (7.8.7): the length, then the data padded to 31 bytes.
    public static func leSetAdvertisingData(_ data: AdvertisingData) -> HCICommand {
        HCICommand(opcode: 0x2008, parameters: legacyDataBlock(data))
    }

    /// LE Set Scan Response Data (7.8.8): the length, then the data padded to 31 bytes.
    public static func leSetScanResponseData(_ data: AdvertisingData) -> HCICommand {
        HCICommand(opcode: 0x2009, parameters: legacyDataBlock(data))
    }

    /// LE Set Advertising Enable (7.8.9).
    public static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
        HCICommand(opcode: 0x200A, parameters: [enable ? 1 : 0])
    }

    /// The 32-byte parameter block of the legacy advertising and scan response data commands.
    private static func legacyDataBlock(_ data: AdvertisingData) -> [UInt8] {
        let bytes = data.bytes.prefix(AdvertisingData.legacyCapacity)
        return [UInt8(bytes.count)] + bytes + [UInt8](repeating: 0, count: AdvertisingData.legacyCapacity - bytes.count)
    }

    // MARK: Connection tuning

    /// LE Connection Update (7.8.18), answered by Command Status; LE Connection Update Complete follows.
    public static func leConnectionUpdate(handle: UInt16, parameters: LEConnectionParameters) -> HCICommand {
        HCICommand(opcode: 0x2013, parameters: handleAndConnectionBytes(handle, parameters), answeredByStatus: true)
    }

    /// LE Remote Connection Parameter Request Reply (7.8.31): accepts the peer's parameters.
    public static func leRemoteConnectionParameterRequestReply(handle: UInt16, parameters: LEConnectionParameters) -> HCICommand {
        HCICommand(opcode: 0x2020, parameters: handleAndConnectionBytes(handle, parameters))
    }

    /// LE Set Data Length (7.8.33): the link-layer payload this host would like to send.
    public static func leSetDataLength(handle: UInt16, txOctets: UInt16, txTime: UInt16) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        p.appendLE(txOctets)
        p.appendLE(txTime)
        return HCICommand(opcode: 0x2022, parameters: p)
    }

    /// LE Set PHY (7.8.49) asking for 2M both ways, answered by Command Status; LE PHY Update Complete follows.
    public static func leSetPHY2M(handle: UInt16) -> HCICommand {
        var p: [UInt8] = []
        p.appendLE(handle)
        p += [0x00, 0x02, 0x02]
        p.appendLE(UInt16(0))
        return HCICommand(opcode: 0x2032, parameters: p, answeredByStatus: true)
    }

    /// A connection handle followed by ``LEConnectionParameters/connectionBytes``, as LE Connection
    /// Update and LE Remote Connection Parameter Request Reply carry them.
    private static func handleAndConnectionBytes(_ handle: UInt16, _ parameters: LEConnectionParameters) -> [UInt8] {
        var p: [UInt8] = []
        p.appendLE(handle)
        return p + parameters.connectionBytes
    }
}

/// LE connection parameters in the spec's units: intervals in 1.25 ms, timeout in 10 ms, scan in 0.625 ms.
public struct LEConnectionParameters: Sendable, Hashable {
    /// Shortest connection interval (6 is 7.5 ms, the spec's minimum).
    public var minimumInterval: UInt16
    /// Longest connection interval.
    public var maximumInterval: UInt16
    /// Peripheral latency in connection events.
    public var latency: UInt16
    /// Supervision timeout (units of 10 ms).
    public var supervisionTimeout: UInt16
    /// Scan interval while connecting (units of 0.625 ms).
    public var scanInterval: UInt16
    /// Scan window while connecting (units of 0.625 ms).
    public var scanWindow: UInt16

    /// Makes parameters; the defaults ask for 7.5–15 ms as Go `mcumgr` does, no latency, a 4 s timeout.
    public init(
        minimumInterval: UInt16 = 6, maximumInterval: UInt16 = 12, latency: UInt16 = 0, supervisionTimeout: UInt16 = 400,
        scanInterval: UInt16 = 0x0030, scanWindow: UInt16 = 0x0030
    ) {
        self.minimumInterval = minimumInterval
        self.maximumInterval = maximumInterval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
    }

    /// Parameters with the connection interval from `minimum` to `maximum` (rounded to 1.25 ms steps, 7.5 ms to 4 s).
    public init(interval minimum: Duration, _ maximum: Duration, latency: UInt16 = 0, supervisionTimeout: Duration = .seconds(4)) {
        func units(_ d: Duration, _ unit: Double, _ range: ClosedRange<Double>) -> UInt16 {
            let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            return UInt16(min(max((seconds * 1000 / unit).rounded(), range.lowerBound), range.upperBound))
        }
        let low = units(minimum, 1.25, 6...3200)
        self.init(
            minimumInterval: low, maximumInterval: max(low, units(maximum, 1.25, 6...3200)), latency: latency,
            supervisionTimeout: units(supervisionTimeout, 10, 10...3200))
    }

    /// Interval minimum and maximum, latency, supervision timeout and a zero minimum and maximum
    /// connection-event length: the tail that LE Create Connection, LE Connection Update and LE Remote
    /// Connection Parameter Request Reply share.
    var connectionBytes: [UInt8] {
        var p: [UInt8] = []
        p.appendLE(minimumInterval)
        p.appendLE(maximumInterval)
        p.appendLE(latency)
        p.appendLE(supervisionTimeout)
        p.appendLE(UInt16(0))
        p.appendLE(UInt16(0))
        return p
    }

    /// Whether the values are within the spec's ranges and the timeout exceeds twice the longest interval.
    public var isValid: Bool {
        (6...3200).contains(minimumInterval) && (minimumInterval...3200).contains(maximumInterval) && latency <= 499
            && (10...3200).contains(supervisionTimeout)
            && Int(supervisionTimeout) * 10 > (1 + Int(latency)) * Int(maximumInterval) * 5 / 2
    }
}
