import CBOR

/// A request map decoded as Zephyr's `zcbor_map_decode_bulk()` does: key order does not matter,
/// unknown keys are skipped, and a known key of the wrong type fails the request with `EINVAL`.
struct RequestFields: Sendable {
    private let entries: [String: CBORValue]
    /// Reads a byte string where text is asked for (``SimulatorQuirk/lenientTypes``).
    private let readsBytesAsText: Bool

    /// Decodes `payload`; anything but a well-formed map is `EINVAL`, and so are the maps the
    /// quirks in force refuse (indefinite length, unknown keys).
    init(payload: ArraySlice<UInt8>, quirks: Set<SimulatorQuirk> = []) throws(StatusError) {
        guard !payload.isEmpty, let value = try? CBORReader().decode(payload), let map = value.mapEntries else {
            throw StatusError(MgmtError.invalid)
        }
        if quirks.contains(.refusesIndefiniteMaps), payload.first == 0xbf { throw StatusError(MgmtError.invalid) }
        var entries: [String: CBORValue] = [:]
        for entry in map {
            guard case .text(let key) = entry.key else { continue }
            if quirks.contains(.refusesUnknownKeys), !SimulatorQuirk.knownRequestKeys.contains(key) {
                throw StatusError(MgmtError.invalid)
            }
            if entries[key] == nil { entries[key] = entry.value }
        }
        self.entries = entries
        self.readsBytesAsText = quirks.contains(.lenientTypes)
    }

    /// Whether the key is present at all.
    func has(_ key: String) -> Bool { entries[key] != nil }

    /// An unsigned integer field.
    func unsigned(_ key: String) throws(StatusError) -> UInt64? { try field(key, \.uint64Value) }

    /// A signed integer field.
    func integer(_ key: String) throws(StatusError) -> Int? { try field(key, \.intValue) }

    /// A text field.
    func text(_ key: String) throws(StatusError) -> String? {
        if readsBytesAsText, let bytes = entries[key]?.bytesValue { return String(decoding: bytes, as: UTF8.self) }
        return try field(key, \.textValue)
    }

    /// A byte-string field.
    func bytes(_ key: String) throws(StatusError) -> [UInt8]? { try field(key, \.bytesValue) }

    /// A boolean field.
    func bool(_ key: String) throws(StatusError) -> Bool? { try field(key, \.boolValue) }

    /// An array field.
    func array(_ key: String) throws(StatusError) -> [CBORValue]? { try field(key, \.arrayValue) }

    /// The field as `typed` reads it: nil when absent, `EINVAL` when present with another type.
    private func field<T>(_ key: String, _ typed: (CBORValue) -> T?) throws(StatusError) -> T? {
        guard let value = entries[key] else { return nil }
        guard let result = typed(value) else { throw StatusError(MgmtError.invalid) }
        return result
    }

    /// Any field, undecoded.
    func value(_ key: String) -> CBORValue? { entries[key] }
}
