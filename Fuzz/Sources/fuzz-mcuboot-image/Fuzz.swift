// products: McuBoot
import FuzzSupport
import McuBoot

/// An image file a user hands the CLI: the MCUboot header, the protected and unprotected TLV
/// areas, the hash check and the signature checks against the test fixtures' keys.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMcuBootImage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = FuzzInput(start, count).bytes
    _ = try? McuBootImageHeader(parsing: bytes)
    guard let image = try? McuBootImage(bytes: bytes) else { return 0 }
    _ = try? image.verifyHash()
    _ = image.computedHash()
    _ = image.version.deviceString
    for key in Keys.all {
        _ = try? image.verifySignature(publicKey: key)
    }
    for type in [McuBootTLVType.sha256, .sha384, .sha512, .keyHash, .publicKey, .ecdsaSignature, .ed25519] {
        _ = image.tlvs(ofType: type)
    }
    return 0
}

/// The public keys of Tests/McuBootTests/Fixtures/keys.
enum Keys {
    static let all: [McuBootPublicKey] = [
        try! McuBootPublicKey(pemRepresentation: """
            -----BEGIN PUBLIC KEY-----
            MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEl0Nt7UP4kfhmSeFb7mVRXT0oDmpX
            Qll5EmIHRI2OumILEr80/NvGZvCsQojm+WBw6ysh863lXReZB8G1wHf3Ng==
            -----END PUBLIC KEY-----
            """),
        try! McuBootPublicKey(pemRepresentation: """
            -----BEGIN PUBLIC KEY-----
            MCowBQYDK2VwAyEASBDVarvPDFY/1IsEKW21g4Hr+11p4FPNkZXm8PSo3vw=
            -----END PUBLIC KEY-----
            """),
    ]
}
