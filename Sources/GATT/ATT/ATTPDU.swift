/// One ATT PDU of the kinds a GATT client and a small GATT server exchange (Core spec Vol 3 Part F 3.4).
///
/// ``bytes`` encodes, ``init(decoding:)`` decodes with bounds checks: a PDU that is short, too long
/// for its fixed size, or internally inconsistent is an ``ATTDecodingError``; nothing is allocated
/// beyond the bytes that arrived. Handles and UUIDs are little-endian on the wire.
public enum ATTPDU: Hashable, Sendable {
    /// ATT_ERROR_RSP: the request `request` on `handle` failed with `code`.
    case errorResponse(request: ATTOpcode, handle: UInt16, code: ATTErrorCode)
    /// ATT_EXCHANGE_MTU_REQ with the client's receive MTU.
    case exchangeMTURequest(clientRxMTU: UInt16)
    /// ATT_EXCHANGE_MTU_RSP with the server's receive MTU.
    case exchangeMTUResponse(serverRxMTU: UInt16)
    /// ATT_FIND_INFORMATION_REQ over a handle range.
    case findInformationRequest(start: UInt16, end: UInt16)
    /// ATT_FIND_INFORMATION_RSP: handles and their types (all 16-bit or all 128-bit UUIDs).
    case findInformationResponse([ATTHandleType])
    /// ATT_FIND_BY_TYPE_VALUE_REQ: attributes of 16-bit `type` whose value is `value`.
    case findByTypeValueRequest(start: UInt16, end: UInt16, type: UInt16, value: [UInt8])
    /// ATT_FIND_BY_TYPE_VALUE_RSP: found handles and their group end handles.
    case findByTypeValueResponse([ATTHandleRange])
    /// ATT_READ_BY_TYPE_REQ: values of attributes of `type` in a range.
    case readByTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    /// ATT_READ_BY_TYPE_RSP: handle-value pairs (all values of one length).
    case readByTypeResponse([ATTHandleValue])
    /// ATT_READ_REQ.
    case readRequest(handle: UInt16)
    /// ATT_READ_RSP.
    case readResponse(value: [UInt8])
    /// ATT_READ_BY_GROUP_TYPE_REQ: grouping attributes of `type` in a range.
    case readByGroupTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    /// ATT_READ_BY_GROUP_TYPE_RSP: groups with their end handles and values (all of one length).
    case readByGroupTypeResponse([ATTGroupValue])
    /// ATT_WRITE_REQ.
    case writeRequest(handle: UInt16, value: [UInt8])
    /// ATT_WRITE_RSP.
    case writeResponse
    /// ATT_WRITE_CMD (no response).
    case writeCommand(handle: UInt16, value: [UInt8])
    /// ATT_HANDLE_VALUE_NTF (no confirmation).
    case handleValueNotification(handle: UInt16, value: [UInt8])
    /// ATT_HANDLE_VALUE_IND (confirmed with ATT_HANDLE_VALUE_CFM).
    case handleValueIndication(handle: UInt16, value: [UInt8])
    /// ATT_HANDLE_VALUE_CFM.
    case handleValueConfirmation

    /// The PDU's opcode.
    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: return .errorResponse
        case .exchangeMTURequest: return .exchangeMTURequest
        case .exchangeMTUResponse: return .exchangeMTUResponse
        case .findInformationRequest: return .findInformationRequest
        case .findInformationResponse: return .findInformationResponse
        case .findByTypeValueRequest: return .findByTypeValueRequest
        case .findByTypeValueResponse: return .findByTypeValueResponse
        case .readByTypeRequest: return .readByTypeRequest
        case .readByTypeResponse: return .readByTypeResponse
        case .readRequest: return .readRequest
        case .readResponse: return .readResponse
        case .readByGroupTypeRequest: return .readByGroupTypeRequest
        case .readByGroupTypeResponse: return .readByGroupTypeResponse
        case .writeRequest: return .writeRequest
        case .writeResponse: return .writeResponse
        case .writeCommand: return .writeCommand
        case .handleValueNotification: return .handleValueNotification
        case .handleValueIndication: return .handleValueIndication
        case .handleValueConfirmation: return .handleValueConfirmation
        }
    }

    /// The PDU on the wire.
    ///
    /// List responses take their entry width from the first entry; entries of another width are
    /// left out (a server puts them in a later response, as the spec requires).
    public var bytes: [UInt8] {
        var out: [UInt8] = [opcode.rawValue]
        func put(_ value: UInt16) {
            out.append(UInt8(value & 0xFF))
            out.append(UInt8(value >> 8))
        }
        switch self {
        case .errorResponse(let request, let handle, let code):
            out.append(request.rawValue)
            put(handle)
            out.append(code.rawValue)
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
            put(mtu)
        case .findInformationRequest(let start, let end):
            put(start)
            put(end)
        case .findInformationResponse(let entries):
            let width = entries.first?.type.littleEndianBytes.count ?? 2
            out.append(width == 2 ? 0x01 : 0x02)
            for entry in entries where entry.type.littleEndianBytes.count == width {
                put(entry.handle)
                out += entry.type.littleEndianBytes
            }
        case .findByTypeValueRequest(let start, let end, let type, let value):
            put(start)
            put(end)
            put(type)
            out += value
        case .findByTypeValueResponse(let ranges):
            for range in ranges {
                put(range.found)
                put(range.groupEnd)
            }
        case .readByTypeRequest(let start, let end, let type), .readByGroupTypeRequest(let start, let end, let type):
            put(start)
            put(end)
            out += type.littleEndianBytes
        case .readByTypeResponse(let entries):
            let length = entries.first?.value.count ?? 0
            out.append(UInt8(truncatingIfNeeded: 2 + length))
            for entry in entries where entry.value.count == length {
                put(entry.handle)
                out += entry.value
            }
        case .readRequest(let handle):
            put(handle)
        case .readResponse(let value):
            out += value
        case .readByGroupTypeResponse(let entries):
            let length = entries.first?.value.count ?? 0
            out.append(UInt8(truncatingIfNeeded: 4 + length))
            for entry in entries where entry.value.count == length {
                put(entry.handle)
                put(entry.groupEnd)
                out += entry.value
            }
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value),
            .handleValueNotification(let handle, let value), .handleValueIndication(let handle, let value):
            put(handle)
            out += value
        case .writeResponse, .handleValueConfirmation:
            break
        }
        return out
    }
}

/// A handle and the type of the attribute there (Find Information Response).
public struct ATTHandleType: Hashable, Sendable {
    /// The attribute handle.
    public var handle: UInt16
    /// The attribute type.
    public var type: BluetoothUUID
    /// Makes an entry.
    public init(handle: UInt16, type: BluetoothUUID) {
        self.handle = handle
        self.type = type
    }
}

/// A found attribute handle and the end of its group (Find By Type Value Response).
public struct ATTHandleRange: Hashable, Sendable {
    /// The handle of the attribute found (e.g. a service declaration).
    public var found: UInt16
    /// The last handle of its group.
    public var groupEnd: UInt16
    /// Makes an entry.
    public init(found: UInt16, groupEnd: UInt16) {
        self.found = found
        self.groupEnd = groupEnd
    }
}

/// An attribute handle and its value (Read By Type Response).
public struct ATTHandleValue: Hashable, Sendable {
    /// The attribute handle.
    public var handle: UInt16
    /// The attribute value (possibly cut to fit the response).
    public var value: [UInt8]
    /// Makes an entry.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// A grouping attribute, its group end and its value (Read By Group Type Response).
public struct ATTGroupValue: Hashable, Sendable {
    /// The grouping attribute's handle.
    public var handle: UInt16
    /// The last handle of the group.
    public var groupEnd: UInt16
    /// The attribute value (e.g. a service UUID).
    public var value: [UInt8]
    /// Makes an entry.
    public init(handle: UInt16, groupEnd: UInt16, value: [UInt8]) {
        self.handle = handle
        self.groupEnd = groupEnd
        self.value = value
    }
}
