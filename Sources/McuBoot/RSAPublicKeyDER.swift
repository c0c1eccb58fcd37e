import SwiftASN1

/// RSA public keys in DER, read with SwiftASN1 (internal).
///
/// swift-crypto 3.12's `_RSA.Signing.PublicKey(derRepresentation:)` frees its BoringSSL key twice
/// when the bytes are not an RSA public key, which aborts the process; so DER from a file is
/// parsed here first and only the modulus and exponent of a well-formed key go to swift-crypto
/// (`_RSA.Signing.PublicKey(n:e:)`).
enum RSAPublicKeyDER {
    /// `rsaEncryption` (RFC 8017), the algorithm of an RSA SubjectPublicKeyInfo.
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]

    /// The modulus and public exponent (DER INTEGER contents, big-endian) of an RSA public key
    /// in SubjectPublicKeyInfo or PKCS#1 `RSAPublicKey` form; nil for any other bytes.
    static func components(_ der: [UInt8]) -> (modulus: ArraySlice<UInt8>, exponent: ArraySlice<UInt8>)? {
        guard let root = try? DER.parse(der) else { return nil }
        if let pair = try? pkcs1(root) { return pair }
        let key = try? DER.sequence(root, identifier: .sequence) { nodes -> ArraySlice<UInt8> in
            guard let algorithmNode = nodes.next(), let keyNode = nodes.next() else {
                throw ASN1Error.invalidASN1Object(reason: "a SubjectPublicKeyInfo has an algorithm and a key")
            }
            let algorithm = try DER.sequence(algorithmNode, identifier: .sequence) { fields -> ASN1ObjectIdentifier in
                guard let oid = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "no algorithm") }
                while fields.next() != nil {}  // the parameters (NULL)
                return try ASN1ObjectIdentifier(derEncoded: oid)
            }
            guard algorithm == rsaEncryption else { throw ASN1Error.invalidASN1Object(reason: "not an RSA key") }
            return try ASN1BitString(derEncoded: keyNode).bytes
        }
        guard let key, let keyRoot = try? DER.parse(key) else { return nil }
        return try? pkcs1(keyRoot)
    }

    /// `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`.
    private static func pkcs1(_ node: ASN1Node) throws -> (modulus: ArraySlice<UInt8>, exponent: ArraySlice<UInt8>) {
        try DER.sequence(node, identifier: .sequence) { nodes in
            guard let modulus = nodes.next(), let exponent = nodes.next() else {
                throw ASN1Error.invalidASN1Object(reason: "an RSAPublicKey has a modulus and an exponent")
            }
            return (try ArraySlice<UInt8>(derEncoded: modulus), try ArraySlice<UInt8>(derEncoded: exponent))
        }
    }
}
