/// One command on the LE signalling channel (CID 0x0005; Core spec Vol 3 Part A 4).
public struct L2CAPSignal: Sendable, Hashable {
    /// The fixed channel signalling travels on.
    public static let channel: UInt16 = 0x0005

    /// The command code, e.g. 0x12 Connection Parameter Update Request.
    public var code: UInt8
    /// Matches a response to its request (never 0).
    public var identifier: UInt8
    /// The command's data.
    public var data: [UInt8]

    /// Makes a command.
    public init(code: UInt8, identifier: UInt8, data: [UInt8]) {
        self.code = code
        self.identifier = identifier
        self.data = data
    }

    /// The command's bytes: code, identifier, length, data.
    public var bytes: [UInt8] {
        var b: [UInt8] = [code, identifier]
        b.appendLE(UInt16(data.count))
        return b + data
    }

    /// Reads one command from an LE signalling PDU (LE carries exactly one per PDU).
    public static func decode(_ payload: [UInt8]) throws(HCIDecodingError) -> L2CAPSignal {
        var r = ByteReader(payload, what: "L2CAP signalling command")
        let code = try r.u8()
        let identifier = try r.u8()
        let length = Int(try r.u16())
        guard length <= r.remaining else { throw .lengthPastEnd(what: "L2CAP signalling command", length: length, available: r.remaining) }
        return L2CAPSignal(code: code, identifier: identifier, data: Array(try r.bytes(length)))
    }

    /// What a central does with a signalling command from the peer.
    public enum Reply: Sendable, Hashable {
        /// Send `response`; when the peer's parameter update was accepted, also apply `update`.
        case respond(L2CAPSignal, update: LEConnectionParameters?)
        /// Nothing to send (a response or indication, or a command with identifier 0).
        case ignore(String)
    }

    /// This host's answer, as central unless `asCentral` is false: a Connection Parameter Update
    /// Request is accepted when its values are valid (and rejected otherwise); a peripheral, to which
    /// no one may send it, rejects it as not understood. An LE credit-based connection request is
    /// refused (no dynamic channels here); any other request is rejected as not understood;
    /// responses are ignored.
    public func reply(asCentral: Bool = true) -> Reply {
        guard identifier != 0 else { return .ignore("signalling command 0x\(hex(code)) with identifier 0") }
        switch code {
        case 0x12 where !asCentral:
            return .respond(Self.reject(identifier, reason: 0x0000), update: nil)
        case 0x12:
            var r = ByteReader(data, what: "Connection Parameter Update Request")
            guard data.count == 8, let minimum = try? r.u16(), let maximum = try? r.u16(), let latency = try? r.u16(),
                let timeout = try? r.u16()
            else { return .respond(Self.reject(identifier, reason: 0x0000), update: nil) }
            var parameters = LEConnectionParameters()
            parameters.minimumInterval = minimum
            parameters.maximumInterval = maximum
            parameters.latency = latency
            parameters.supervisionTimeout = timeout
            let accepted = parameters.isValid
            var result: [UInt8] = []
            result.appendLE(UInt16(accepted ? 0x0000 : 0x0001))
            return .respond(L2CAPSignal(code: 0x13, identifier: identifier, data: result), update: accepted ? parameters : nil)
        case 0x14:
            // LE Credit Based Connection Response: destination CID, MTU, MPS, credits 0; result 0x0002 "SPSM not supported".
            return .respond(L2CAPSignal(code: 0x15, identifier: identifier, data: [0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00]), update: nil)
        case 0x01, 0x07, 0x13, 0x15, 0x16, 0x18, 0x1A:
            return .ignore("signalling response or indication 0x\(hex(code)) for nothing this host asked")
        default:
            return .respond(Self.reject(identifier, reason: 0x0000), update: nil)
        }
    }

    /// A Connection Parameter Update Request (code 0x12) for `parameters`' intervals, latency and
    /// timeout: what a peripheral sends to ask its central for other connection parameters.
    public static func connectionParameterUpdateRequest(identifier: UInt8, parameters: LEConnectionParameters) -> L2CAPSignal {
        var data: [UInt8] = []
        for value in [parameters.minimumInterval, parameters.maximumInterval, parameters.latency, parameters.supervisionTimeout] {
            data.appendLE(value)
        }
        return L2CAPSignal(code: 0x12, identifier: identifier, data: data)
    }

    /// A Command Reject with `reason` (0x0000 command not understood, 0x0001 MTU exceeded, 0x0002 invalid CID).
    public static func reject(_ identifier: UInt8, reason: UInt16) -> L2CAPSignal {
        var data: [UInt8] = []
        data.appendLE(reason)
        return L2CAPSignal(code: 0x01, identifier: identifier, data: data)
    }
}
