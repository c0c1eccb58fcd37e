/// A message that builds its own CBOR tree. ``CBOREncoder`` takes ``cborValue`` as it is instead of
/// going through `Encodable` key by key, which matters for messages built hundreds of times a
/// second (upload chunks); its `Encodable` conformance can then be `cborValue.encode(to:)`.
public protocol CBORValueRepresentable {
    /// The message as a CBOR tree.
    var cborValue: CBORValue { get }
}
