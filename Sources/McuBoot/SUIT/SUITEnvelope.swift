import CBOR

/// A SUIT envelope (`.suit`, as nRF Connect SDK builds them for the nRF54H20): the authentication
/// wrapper (the manifest's digest and COSE_Sign1 signatures), the manifest (sequence number,
/// components, the URIs its command sequences fetch), severable members and integrated payloads.
///
/// Parsing checks the structure and whether the manifest's digest matches; ``verifySignature(keys:)``
/// checks a signature. Bytes that are not an envelope throw ``SUITEnvelopeError``, never trap.
public struct SUITEnvelope: Sendable, Hashable {
    /// The envelope's bytes, as uploaded.
    public let bytes: [UInt8]
    /// The digest the authentication wrapper carries for the manifest.
    public let digest: SUITDigest
    /// The signatures (COSE_Sign1 authentication blocks).
    public let signatures: [SUITSignature]
    /// The encoded manifest (what the digest covers).
    public let manifestBytes: [UInt8]
    /// `suit-manifest-version` (1).
    public let manifestVersion: Int
    /// `suit-manifest-sequence-number`: the manifest's version for anti-rollback, which devices report.
    public let sequenceNumber: UInt64
    /// The component identifiers (`suit-common`'s `suit-components`), each a list of byte strings.
    public let components: [[[UInt8]]]
    /// The manifest's own component id (`suit-manifest-component-id`, NCS), if present.
    public let manifestComponentID: [[UInt8]]?
    /// The resources the command sequences name by URI, with the digest and size set beside them, in order.
    public let resources: [SUITResourceReference]
    /// Integrated payloads by name (`"#app"` → bytes).
    public let integratedPayloads: [String: [UInt8]]
    /// Whether the manifest's digest matches the one in the authentication wrapper.
    public let digestMatches: Bool

    /// The most nesting the parser follows into command sequences.
    static let maximumSequenceDepth = 8

    /// Parses an envelope.
    public init(bytes: [UInt8]) throws(SUITEnvelopeError) {
        self.bytes = bytes
        var top: CBORValue
        do {
            top = try CBORReader(maximumDepth: 64).decode(bytes)
        } catch {
            throw .malformed("the bytes are not CBOR (\(error))")
        }
        if case .tagged(let tag, let inner) = top {
            guard tag == SUITKey.envelopeTag else { throw .malformed("the envelope carries CBOR tag \(tag), not 107") }
            top = inner
        }
        guard let entries = top.mapEntries else { throw .malformed("the envelope is not a CBOR map") }
        var wrapper: [UInt8]?
        var manifest: [UInt8]?
        var severable: [[UInt8]] = []
        var payloads: [String: [UInt8]] = [:]
        for (key, value) in entries {
            if let name = key.textValue {
                guard let payload = value.bytesValue else { throw .malformed("integrated payload \(name) is not a byte string") }
                payloads[name] = payload
            } else if let number = key.intValue {
                switch number {
                case SUITKey.authenticationWrapper: wrapper = value.bytesValue
                case SUITKey.manifest: manifest = value.bytesValue
                case SUITKey.payloadFetch, SUITKey.install: if let sequence = value.bytesValue { severable.append(sequence) }
                default: break
                }
            }
        }
        guard let wrapper else { throw .malformed("no authentication wrapper (key 2, a byte string)") }
        guard let manifest else { throw .malformed("no manifest (key 3, a byte string)") }
        manifestBytes = manifest
        integratedPayloads = payloads

        let blocks = try Self.decode(wrapper, "the authentication wrapper").arrayValue ?? []
        guard let first = blocks.first?.bytesValue else { throw .malformed("the authentication wrapper has no digest") }
        digest = try SUITDigest(cbor: try Self.decode(first, "the manifest digest"))
        var signatures: [SUITSignature] = []
        for block in blocks.dropFirst() {
            guard let blockBytes = block.bytesValue else { throw .malformed("an authentication block is not a byte string") }
            if let signature = try SUITSignature(cbor: try Self.decode(blockBytes, "an authentication block"), digestBytes: first) {
                signatures.append(signature)
            }
        }
        self.signatures = signatures
        digestMatches = digest.recomputed(over: manifest) == digest.bytes

        let body = try Self.decode(manifest, "the manifest")
        guard body.mapEntries != nil else { throw .malformed("the manifest is not a CBOR map") }
        guard let version = body[int: SUITKey.manifestVersion]?.intValue else { throw .malformed("the manifest has no version (key 1)") }
        guard let sequence = body[int: SUITKey.sequenceNumber]?.uint64Value else {
            throw .malformed("the manifest has no sequence number (key 2)")
        }
        manifestVersion = version
        sequenceNumber = sequence
        manifestComponentID = body[int: SUITKey.manifestComponentID]?.arrayValue?.compactMap(\.bytesValue)

        var components: [[[UInt8]]] = []
        var sequences: [CBORValue] = []
        if let commonBytes = body[int: SUITKey.common]?.bytesValue {
            let common = try Self.decode(commonBytes, "suit-common")
            for component in common[int: SUITKey.components]?.arrayValue ?? [] {
                guard let parts = component.arrayValue else { throw .malformed("a component identifier is not an array") }
                components.append(parts.compactMap(\.bytesValue))
            }
            if let shared = common[int: SUITKey.sharedSequence]?.bytesValue { sequences.append(try Self.decode(shared, "the shared sequence")) }
        }
        self.components = components
        for key in [SUITKey.validate, SUITKey.load, SUITKey.invoke, SUITKey.payloadFetch, SUITKey.install] {
            // Severable members sit in the manifest as a digest (an array) or inline (a byte string).
            if let inline = body[int: key]?.bytesValue { sequences.append(try Self.decode(inline, "command sequence \(key)")) }
        }
        for sequence in severable { sequences.append(try Self.decode(sequence, "a severable command sequence")) }
        var resources: [SUITResourceReference] = []
        for sequence in sequences { try Self.collectResources(in: sequence, depth: 0, into: &resources) }
        self.resources = resources
    }

    /// Decodes a byte string that holds CBOR (`bstr .cbor`), naming `what` when it does not.
    static func decode(_ bytes: [UInt8], _ what: String) throws(SUITEnvelopeError) -> CBORValue {
        do {
            return try CBORReader(maximumDepth: 64).decode(bytes)
        } catch {
            throw .malformed("\(what) is not CBOR")
        }
    }

    /// Walks a command sequence (`[command, argument, …]`) for parameters that name a URI, and into
    /// the sequences of try-each and run-sequence.
    static func collectResources(in sequence: CBORValue, depth: Int, into resources: inout [SUITResourceReference]) throws(SUITEnvelopeError) {
        guard depth < maximumSequenceDepth else { throw .malformed("command sequences nest deeper than \(maximumSequenceDepth)") }
        guard let items = sequence.arrayValue else { throw .malformed("a command sequence is not an array") }
        var index = 0
        while index + 1 < items.count {
            let command = items[index].intValue
            let argument = items[index + 1]
            index += 2
            switch command {
            case SUITKey.directiveSetParameters, SUITKey.directiveOverrideParameters:
                guard let uri = argument[int: SUITKey.parameterURI]?.textValue else { continue }
                var digest: SUITDigest?
                if let digestBytes = argument[int: SUITKey.parameterImageDigest]?.bytesValue {
                    digest = try SUITDigest(cbor: try decode(digestBytes, "an image digest"))
                }
                let size = argument[int: SUITKey.parameterImageSize]?.uint64Value.map { Int(clamping: $0) }
                resources.append(SUITResourceReference(uri: uri, digest: digest, size: size))
            case SUITKey.directiveTryEach:
                for option in argument.arrayValue ?? [] {
                    if let nested = option.bytesValue {
                        try collectResources(in: try decode(nested, "a try-each sequence"), depth: depth + 1, into: &resources)
                    }
                }
            case SUITKey.directiveRunSequence:
                if let nested = argument.bytesValue {
                    try collectResources(in: try decode(nested, "a run-sequence"), depth: depth + 1, into: &resources)
                }
            default:
                continue
            }
        }
    }
}

/// A resource a SUIT manifest fetches: its URI, and the digest and size set with it.
public struct SUITResourceReference: Sendable, Hashable {
    /// The URI (`file://app.bin`, `#app` for an integrated payload).
    public var uri: String
    /// The expected digest, when the manifest sets one beside the URI.
    public var digest: SUITDigest?
    /// The expected size, when the manifest sets one beside the URI.
    public var size: Int?

    /// Makes a reference.
    public init(uri: String, digest: SUITDigest? = nil, size: Int? = nil) {
        self.uri = uri
        self.digest = digest
        self.size = size
    }
}

extension CBORValue {
    /// The value under integer key `key` of a map.
    subscript(int key: Int) -> CBORValue? {
        guard let entries = mapEntries else { return nil }
        return entries.first { $0.key.intValue == key }?.value
    }
}
