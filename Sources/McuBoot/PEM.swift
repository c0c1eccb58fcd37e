#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A PEM block (internal helper for reading imgtool key files).
struct PEMBlock {
    /// The label between `-----BEGIN ` and `-----`, e.g. `PUBLIC KEY`.
    var label: String
    /// The base64-decoded body.
    var der: [UInt8]

    /// The first PEM block in `text`.
    init(parsing text: String) throws(McuBootError) {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        guard let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN ") && $0.hasSuffix("-----") }) else {
            throw .invalidKey("no PEM block (-----BEGIN ...-----) found")
        }
        let label = String(lines[begin].dropFirst("-----BEGIN ".count).dropLast(5))
        guard let end = lines[begin...].firstIndex(of: "-----END \(label)-----") else {
            throw .invalidKey("the PEM block \(label) has no END line")
        }
        let body = lines[(begin + 1)..<end].filter { !$0.contains(":") }.joined()
        guard let data = Data(base64Encoded: body) else {
            throw .invalidKey("the PEM block \(label) is not valid base64")
        }
        self.label = label
        self.der = Array(data)
    }
}

/// Fixed DER prefixes of the key encodings imgtool writes.
enum KeyDER {
    /// SubjectPublicKeyInfo for Ed25519, followed by the 32-byte key.
    static let ed25519SPKIPrefix: [UInt8] = [
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
    ]
    /// PKCS#8 PrivateKeyInfo for Ed25519, followed by the 32-byte seed.
    static let ed25519PKCS8Prefix: [UInt8] = [
        0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]
    /// SubjectPublicKeyInfo for an ECDSA P-256 key, followed by the 65-byte uncompressed point.
    static let p256SPKIPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
        0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// The 32 bytes after `prefix` when `der` is exactly `prefix` + 32 bytes.
    static func key32(_ der: [UInt8], prefix: [UInt8]) -> [UInt8]? {
        guard der.count == prefix.count + 32, der.starts(with: prefix) else { return nil }
        return Array(der[prefix.count...])
    }
}
