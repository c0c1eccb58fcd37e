import CBOR

/// A request map decoded as Zephyr's `zcbor_map_decode_bulk()` does: key order does not matter,
/// unknown keys are skipped, and a known key of the wrong type fails the request with `EINVAL`.
struct RequestFields: Sendable {
    private let entries: [String: CBORValue]

    /// Decodes `payload`; anything but a well-formed map is `EINVAL`.
    init(payload: ArraySlice<UInt8>) throws(StatusError) {
        guard !payload.isEmpty, let value = try? CBORReader().decode(payload), let map = value.mapEntries else {
            throw StatusError(MgmtError.invalid)
        }
        var entries: [String: CBORValue] = [:]
        for entry in map {
            guard case .text(let key) = entry.key else { continue }
            if entries[key] == nil { entries[key] = entry.value }
        }
        self.entries = entries
    }

    /// Whether the key is present at all.
    func has(_ key: String) -> Bool { entries[key] != nil }

    /// An unsigned integer field.
    func unsigned(_ key: String) throws(StatusError) -> UInt64? {
        guard let value = entries[key] else { return nil }
        guard case .unsigned(let n) = value else { throw StatusError(MgmtError.invalid) }
        return n
    }

    /// A signed integer field.
    func integer(_ key: String) throws(StatusError) -> Int? {
        guard let value = entries[key] else { return nil }
        guard let n = value.intValue else { throw StatusError(MgmtError.invalid) }
        return n
    }

    /// A text field.
    func text(_ key: String) throws(StatusError) -> String? {
        guard let value = entries[key] else { return nil }
        guard case .text(let s) = value else { throw StatusError(MgmtError.invalid) }
        return s
    }

    /// A byte-string field.
    func bytes(_ key: String) throws(StatusError) -> [UInt8]? {
        guard let value = entries[key] else { return nil }
        guard case .bytes(let b) = value else { throw StatusError(MgmtError.invalid) }
        return b
    }

    /// A boolean field.
    func bool(_ key: String) throws(StatusError) -> Bool? {
        guard let value = entries[key] else { return nil }
        guard case .bool(let b) = value else { throw StatusError(MgmtError.invalid) }
        return b
    }

    /// An array field.
    func array(_ key: String) throws(StatusError) -> [CBORValue]? {
        guard let value = entries[key] else { return nil }
        guard case .array(let a) = value else { throw StatusError(MgmtError.invalid) }
        return a
    }

    /// Any field, undecoded.
    func value(_ key: String) -> CBORValue? { entries[key] }
}
