import GATT

/// The ATT server of the simulated peripheral: answers MTU exchange, discovery, reads and CCCD
/// writes from its ``SMPGATTDatabase``, and hands writes of the SMP characteristic to its caller.
///
/// A state machine without I/O: each PDU in gives the PDU to answer (if any) and what the caller
/// must do. Errors are those a Zephyr server sends; undecodable requests get "Invalid PDU" or
/// "Request Not Supported", undecodable commands and stray responses are ignored with a reason.
struct SMPATTServer {
    /// What one PDU from the client asks of the peripheral.
    enum Action: Equatable {
        /// Send this PDU back.
        case respond(ATTPDU)
        /// A value written to the SMP characteristic; a Write Request (`acknowledged`) expects
        /// a Write Response or an Error Response from the caller.
        case smpWrite([UInt8], acknowledged: Bool)
        /// The CCCD changed to this value; answer with `response` when there is one.
        case configurationChanged(UInt16, response: ATTPDU?)
        /// Nothing to do; the reason is for the log.
        case ignore(String)
    }

    let database: SMPGATTDatabase
    /// The server's receive MTU, offered in the MTU exchange.
    let maximumMTU: Int
    /// The ATT_MTU in force.
    private(set) var mtu = 23
    /// Whether the SMP characteristic and its CCCD take writes only on an encrypted link (never,
    /// here: this server does not encrypt, so such writes are refused).
    let requiresEncryption: Bool
    /// The CCCD value: bit 0 notifications, bit 1 indications.
    private(set) var clientConfiguration: UInt16 = 0

    init(database: SMPGATTDatabase, maximumMTU: Int, requiresEncryption: Bool = false) {
        self.database = database
        self.maximumMTU = min(max(maximumMTU, 23), 517)
        self.requiresEncryption = requiresEncryption
    }

    /// Whether the client asked for notifications.
    var notificationsEnabled: Bool { clientConfiguration & 0x0001 != 0 }

    /// Takes one PDU from the client.
    mutating func receive(_ bytes: [UInt8]) -> Action {
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(decoding: bytes)
        } catch {
            return refuse(error)
        }
        switch pdu {
        case .exchangeMTURequest(let clientMTU):
            mtu = max(23, min(Int(clientMTU), maximumMTU))
            return .respond(.exchangeMTUResponse(serverRxMTU: UInt16(maximumMTU)))
        case .findByTypeValueRequest(let start, let end, let type, let value):
            if let error = checkRange(pdu.opcode, start, end) { return error }
            let found = database.attributes(from: start, to: end).filter { $0.type == BluetoothUUID(type) && $0.value == value }
            let fitting = found.prefix((mtu - 1) / 4).map { ATTHandleRange(found: $0.handle, groupEnd: $0.groupEnd ?? $0.handle) }
            return fitting.isEmpty ? error(pdu.opcode, start, .attributeNotFound) : .respond(.findByTypeValueResponse(fitting))
        case .readByGroupTypeRequest(let start, let end, let type):
            if let error = checkRange(pdu.opcode, start, end) { return error }
            guard type == .primaryService || type == .secondaryService else { return error(pdu.opcode, start, .unsupportedGroupType) }
            let groups = database.attributes(from: start, to: end).filter { $0.type == type }
            guard let first = groups.first else { return error(pdu.opcode, start, .attributeNotFound) }
            let length = first.value.count
            let entries = groups.filter { $0.value.count == length }.prefix((mtu - 2) / (4 + length))
            return .respond(.readByGroupTypeResponse(entries.map { ATTGroupValue(handle: $0.handle, groupEnd: $0.groupEnd ?? $0.handle, value: $0.value) }))
        case .readByTypeRequest(let start, let end, let type):
            if let error = checkRange(pdu.opcode, start, end) { return error }
            let matching = database.attributes(from: start, to: end).filter { $0.type == type }
            guard let first = matching.first else { return error(pdu.opcode, start, .attributeNotFound) }
            guard first.readable else { return error(pdu.opcode, first.handle, .readNotPermitted) }
            let length = min(first.value.count, mtu - 4, 253)
            let entries = matching.prefix { $0.readable && min($0.value.count, mtu - 4, 253) == length }.prefix((mtu - 2) / (2 + length))
            return .respond(.readByTypeResponse(entries.map { ATTHandleValue(handle: $0.handle, value: Array(value(of: $0).prefix(length))) }))
        case .findInformationRequest(let start, let end):
            if let error = checkRange(pdu.opcode, start, end) { return error }
            let inRange = database.attributes(from: start, to: end)
            guard let first = inRange.first else { return error(pdu.opcode, start, .attributeNotFound) }
            let width = first.type.littleEndianBytes.count
            let entries = inRange.prefix { $0.type.littleEndianBytes.count == width }.prefix((mtu - 2) / (2 + width))
            return .respond(.findInformationResponse(entries.map { ATTHandleType(handle: $0.handle, type: $0.type) }))
        case .readRequest(let handle):
            guard let attribute = database.attribute(at: handle) else { return error(pdu.opcode, handle, .invalidHandle) }
            guard attribute.readable else { return error(pdu.opcode, handle, .readNotPermitted) }
            return .respond(.readResponse(value: Array(value(of: attribute).prefix(mtu - 1))))
        case .writeRequest(let handle, let value):
            return write(handle, value, acknowledged: true)
        case .writeCommand(let handle, let value):
            return write(handle, value, acknowledged: false)
        case .handleValueConfirmation:
            return .ignore("a confirmation, but no indication was sent")
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse, .readByTypeResponse,
            .readResponse, .readByGroupTypeResponse, .writeResponse, .handleValueNotification, .handleValueIndication:
            return .ignore("\(pdu.opcode) from the client, which this server never asked for")
        }
    }

    private mutating func write(_ handle: UInt16, _ value: [UInt8], acknowledged: Bool) -> Action {
        let opcode: ATTOpcode = acknowledged ? .writeRequest : .writeCommand
        if requiresEncryption, handle == SMPGATTDatabase.smpValueHandle || handle == SMPGATTDatabase.cccdHandle {
            // Zephyr's answer to an unencrypted link when the attribute needs an authenticated one.
            guard acknowledged else { return .ignore("a write command to handle \(handle) on a link that is not encrypted") }
            return error(opcode, handle, .insufficientAuthentication)
        }
        switch handle {
        case SMPGATTDatabase.smpValueHandle:
            return .smpWrite(value, acknowledged: acknowledged)
        case SMPGATTDatabase.cccdHandle:
            guard value.count == 2 else {
                return acknowledged ? error(opcode, handle, .invalidAttributeValueLength) : .ignore("a \(value.count)-byte CCCD write")
            }
            clientConfiguration = UInt16(value[0]) | UInt16(value[1]) << 8
            return .configurationChanged(clientConfiguration, response: acknowledged ? .writeResponse : nil)
        default:
            guard acknowledged else { return .ignore("a write command to handle \(handle), which takes none") }
            return error(opcode, handle, database.attribute(at: handle) == nil ? .invalidHandle : .writeNotPermitted)
        }
    }

    private func value(of attribute: SMPGATTDatabase.Attribute) -> [UInt8] {
        attribute.handle == SMPGATTDatabase.cccdHandle ? [UInt8(clientConfiguration & 0xFF), UInt8(clientConfiguration >> 8)] : attribute.value
    }

    private func checkRange(_ opcode: ATTOpcode, _ start: UInt16, _ end: UInt16) -> Action? {
        start == 0 || start > end ? error(opcode, start, .invalidHandle) : nil
    }

    private func error(_ opcode: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> Action {
        .respond(.errorResponse(request: opcode, handle: handle, code: code))
    }

    private func refuse(_ error: ATTDecodingError) -> Action {
        guard let opcode = error.opcode else { return .ignore("\(error)") }
        if opcode.isCommand { return .ignore("\(error)") }
        if opcode.isRequest {
            if case .unsupportedOpcode = error { return self.error(opcode, 0, .requestNotSupported) }
            return self.error(opcode, 0, .invalidPDU)
        }
        if !opcode.isDefined { return self.error(opcode, 0, .requestNotSupported) }
        return .ignore("\(error)")
    }
}
