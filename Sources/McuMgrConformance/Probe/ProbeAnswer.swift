import CBOR
import Hex
import SMP

/// A packet the device sent, read without judging it: the header's fields as they are, the
/// payload, and the payload as CBOR when it is well-formed.
struct ProbeAnswer: Sendable {
    /// The packet as it arrived.
    let bytes: [UInt8]
    /// The payload decoded, or `nil` when it is not one CBOR item.
    let value: CBORValue?

    /// Reads a packet; `nil` when it is shorter than a header.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= SMPHeader.size else { return nil }
        self.bytes = bytes
        let payload = bytes.dropFirst(SMPHeader.size)
        value = payload.isEmpty ? nil : try? CBORReader().decode(payload)
    }

    /// The version bits (0 for SMP v1, 1 for SMP v2).
    var versionBits: UInt8 { (bytes[0] >> 3) & 0x03 }
    /// The operation bits (1 read response, 3 write response).
    var operationBits: UInt8 { bytes[0] & 0x07 }
    /// The flags byte.
    var flags: UInt8 { bytes[1] }
    /// The length field.
    var declaredLength: Int { Int(bytes[2]) << 8 | Int(bytes[3]) }
    /// The group.
    var group: UInt16 { UInt16(bytes[4]) << 8 | UInt16(bytes[5]) }
    /// The sequence number.
    var sequence: UInt8 { bytes[6] }
    /// The command.
    var command: UInt8 { bytes[7] }
    /// The payload bytes.
    var payload: ArraySlice<UInt8> { bytes.dropFirst(SMPHeader.size) }
    /// Whether the length field says how many bytes follow the header.
    var lengthMatches: Bool { declaredLength == payload.count }
    /// Whether the operation is a response's (1 or 3).
    var isResponse: Bool { operationBits == 1 || operationBits == 3 }

    /// The top-level `rc`, when there is one.
    var rc: Int? { value?["rc"]?.intValue }

    /// The SMP v2 group error `err {group, rc}`, when there is one.
    var groupError: (group: Int, rc: Int)? {
        guard let err = value?["err"], let group = err["group"]?.intValue, let rc = err["rc"]?.intValue else { return nil }
        return (group, rc)
    }

    /// A map without a non-zero `rc` and without `err`.
    var isSuccess: Bool {
        guard value?.mapEntries != nil else { return false }
        return (rc ?? 0) == 0 && value?["err"] == nil
    }

    /// Refused: a non-zero `rc` or an `err`.
    var isRefusal: Bool { (rc ?? 0) != 0 || groupError != nil }

    /// The answer map's keys, in wire order.
    var keys: [String] {
        (value?.mapEntries ?? []).compactMap { $0.key.textValue }
    }

    /// The answer in a few words: `rc 8 (MGMT_ERR_ENOTSUP)`, `err {group 1, rc 8}`, `{"r": "hi"}`.
    var summary: String {
        if let error = groupError { return "err {group \(error.group), rc \(error.rc)}" }
        if let rc, rc != 0 { return "rc \(rc) (\(SMPReturnCode(rawValue: rc).name))" }
        guard let value else { return payload.isEmpty ? "an empty payload" : "a payload that is not CBOR (\(payload.prefix(16).hexString))" }
        let text = "\(value)"
        return text.count > 120 ? String(text.prefix(117)) + "…" : text
    }
}
