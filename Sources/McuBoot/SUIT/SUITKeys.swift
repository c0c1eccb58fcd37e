/// The integer keys and identifiers of a SUIT envelope and manifest (RFC 9124's information model,
/// draft-ietf-suit-manifest's CDDL, as nRF Connect SDK's SUIT envelopes use them).
enum SUITKey {
    // SUIT_Envelope.
    static let authenticationWrapper = 2
    static let manifest = 3
    static let payloadFetch = 16
    static let install = 17
    static let text = 23
    /// CBOR tag of SUIT_Envelope_Tagged.
    static let envelopeTag: UInt64 = 107
    /// CBOR tag of COSE_Sign1_Tagged.
    static let coseSign1Tag: UInt64 = 18

    // SUIT_Manifest.
    static let manifestVersion = 1
    static let sequenceNumber = 2
    static let common = 3
    static let referenceURI = 4
    static let manifestComponentID = 5
    static let validate = 7
    static let load = 8
    static let invoke = 9

    // SUIT_Common.
    static let components = 2
    static let sharedSequence = 4

    // Commands whose argument holds parameters or further sequences.
    static let directiveTryEach = 15
    static let directiveSetParameters = 19
    static let directiveOverrideParameters = 20
    static let directiveRunSequence = 32

    // Parameters.
    static let parameterImageDigest = 3
    static let parameterImageSize = 14
    static let parameterURI = 21
}
