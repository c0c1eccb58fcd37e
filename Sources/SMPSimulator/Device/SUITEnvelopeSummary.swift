import CBOR
import Crypto

/// What the simulated SUIT device reads of an envelope, written from the SUIT CDDL (key 2 the
/// authentication wrapper, whose first element is the manifest's digest; key 3 the manifest, whose
/// key 2 is the sequence number), not from the client's parser: the digest (checked against the
/// manifest), the sequence number, and the `file://` URIs anywhere in the manifest and the
/// severable sequences, with the digest and size set in the same parameter map.
struct SUITEnvelopeSummary: Sendable {
    struct Fetch: Sendable, Equatable {
        var uri: String
        var digest: [UInt8]?
        var size: Int?
    }

    let digest: [UInt8]
    let sequenceNumber: UInt64
    let fetches: [Fetch]

    /// Reads an envelope; nil when it is not one, or its digest is wrong.
    init?(_ bytes: [UInt8]) {
        guard var top = try? CBORReader().decode(bytes) else { return nil }
        if case .tagged(107, let inner) = top { top = inner }
        guard let entries = top.mapEntries,
              let wrapperBytes = entries.first(where: { $0.key.intValue == 2 })?.value.bytesValue,
              let manifestBytes = entries.first(where: { $0.key.intValue == 3 })?.value.bytesValue,
              let wrapper = try? CBORReader().decode(wrapperBytes), let digestBytes = wrapper.arrayValue?.first?.bytesValue,
              let digest = (try? CBORReader().decode(digestBytes))?.arrayValue, digest.count == 2,
              digest[0].intValue == -16, let expected = digest[1].bytesValue,
              Array(SHA256.hash(data: manifestBytes)) == expected,
              let manifest = try? CBORReader().decode(manifestBytes),
              let sequence = manifest.mapEntries?.first(where: { $0.key.intValue == 2 })?.value.uint64Value
        else { return nil }
        self.digest = expected
        sequenceNumber = sequence
        var fetches: [Fetch] = []
        Self.collect(manifest, depth: 0, into: &fetches)
        for entry in entries where [16, 17].contains(entry.key.intValue) {
            if let nested = entry.value.bytesValue, let value = try? CBORReader().decode(nested) { Self.collect(value, depth: 1, into: &fetches) }
        }
        self.fetches = fetches
    }

    /// Finds parameter maps with a `file://` URI (key 21), looking into byte strings that hold CBOR.
    private static func collect(_ value: CBORValue, depth: Int, into fetches: inout [Fetch]) {
        guard depth < 8 else { return }
        switch value {
        case .map(let entries):
            if let uri = entries.first(where: { $0.key.intValue == 21 })?.value.textValue, uri.hasPrefix("file://") {
                let digest = entries.first(where: { $0.key.intValue == 3 })?.value.bytesValue
                    .flatMap { try? CBORReader().decode($0) }?.arrayValue?.last?.bytesValue
                let size = entries.first(where: { $0.key.intValue == 14 })?.value.intValue
                fetches.append(Fetch(uri: uri, digest: digest, size: size))
            }
            for entry in entries { collect(entry.value, depth: depth + 1, into: &fetches) }
        case .array(let items):
            for item in items { collect(item, depth: depth + 1, into: &fetches) }
        case .bytes(let bytes):
            if let nested = try? CBORReader().decode(bytes), nested.mapEntries != nil || nested.arrayValue != nil {
                collect(nested, depth: depth + 1, into: &fetches)
            }
        default:
            break
        }
    }
}
