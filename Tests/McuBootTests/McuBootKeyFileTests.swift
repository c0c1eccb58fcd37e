import Crypto
import Foundation
import McuBoot
import Testing
import _CryptoExtras

/// Key files as imgtool and OpenSSL write them: PEM or DER, public or private, four algorithms.
@Suite("MCUboot key files")
struct McuBootKeyFileTests {
    static let keyNames = ["ecdsa-p256", "ed25519", "rsa-2048", "rsa-3072"]

    /// The DER body of a PEM file (its base64 between the BEGIN and END lines).
    static func der(ofPEM text: String) throws -> [UInt8] {
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Array(try #require(Data(base64Encoded: body)))
    }

    @Test("public and private, PEM and DER, give the same key; imgtool getpub -e raw hashes to the key hash", arguments: keyNames)
    func formats(name: String) throws {
        guard Imgtool.available() else { return }
        let privatePEM = try Fixtures.text("keys/\(name).pem")
        let publicPEM = try Fixtures.text("keys/\(name).pub.pem")
        let key = try McuBootPublicKey(pemRepresentation: publicPEM)
        let expected: McuBootKeyAlgorithm = switch name {
        case "ecdsa-p256": .ecdsaP256
        case "ed25519": .ed25519
        case "rsa-2048": .rsa2048
        default: .rsa3072
        }
        #expect(key.algorithm == expected)
        #expect(try McuBootPublicKey(pemRepresentation: privatePEM) == key)
        #expect(try McuBootPublicKey(keyFile: Array(privatePEM.utf8)) == key)
        #expect(try McuBootPublicKey(keyFile: Array(("\n" + publicPEM).utf8)) == key)
        #expect(try McuBootPublicKey(keyFile: Self.der(ofPEM: publicPEM)) == key)
        #expect(try McuBootPublicKey(keyFile: Self.der(ofPEM: privatePEM)) == key)
        #expect(key.subjectPublicKeyInfo == (try Self.der(ofPEM: publicPEM)))

        // imgtool's get_public_bytes() (PKCS#1 for RSA, SubjectPublicKeyInfo otherwise), as a DER key file.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcuboot-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let raw = directory.appendingPathComponent("key.der").path
        try Imgtool.run(["getpub", "-e", "raw", "-k", Fixtures.directory.appendingPathComponent("keys/\(name).pem").path, "-o", raw])
        let rawBytes = Array(try Data(contentsOf: URL(fileURLWithPath: raw)))
        #expect(rawBytes == key.publicKeyBytes)
        #expect(try McuBootPublicKey(keyFile: rawBytes) == key)
        #expect(key.keyHash() == Array(SHA256.hash(data: rawBytes)))
    }

    @Test("a PEM key saved on Windows: a byte order mark, CRLF or CR line ends", arguments: keyNames)
    func windowsText(name: String) throws {
        let publicPEM = try Fixtures.text("keys/\(name).pub.pem")
        let key = try McuBootPublicKey(pemRepresentation: publicPEM)
        let bom: [UInt8] = [0xef, 0xbb, 0xbf]
        for ending in ["\r\n", "\r", "\n"] {
            let text = publicPEM.split(separator: "\n").joined(separator: ending) + ending
            #expect(try McuBootPublicKey(keyFile: bom + Array(text.utf8)) == key, "\(ending.debugDescription)")
            #expect(try McuBootPublicKey(keyFile: Array(text.utf8)) == key, "\(ending.debugDescription)")
        }
    }

    @Test("traditional OpenSSL private keys: RSA PRIVATE KEY and EC PRIVATE KEY, PEM and DER")
    func traditionalPrivateKeys() throws {
        let rsa = try _RSA.Signing.PrivateKey(pemRepresentation: Fixtures.text("keys/rsa-2048.pem"))
        let pkcs1PEM = rsa.pemRepresentation
        #expect(pkcs1PEM.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        let fromPKCS1 = try McuBootPublicKey(pemRepresentation: pkcs1PEM)
        #expect(fromPKCS1 == (try McuBootPublicKey(pemRepresentation: Fixtures.text("keys/rsa-2048.pub.pem"))))
        #expect(try McuBootPublicKey(keyFile: Array(rsa.derRepresentation)) == fromPKCS1)
        #expect(try McuBootPublicKey(pemRepresentation: rsa.publicKey.pkcs1PEMRepresentation) == fromPKCS1)

        // SEC 1 "EC PRIVATE KEY", as `openssl ec` writes it, from the imgtool key.
        let p256 = try McuBootPublicKey(pemRepresentation: Fixtures.text("keys/ecdsa-p256.pub.pem"))
        let keyPath = Fixtures.directory.appendingPathComponent("keys/ecdsa-p256.pem").path
        let sec1 = try OpenSSL.run(["ec", "-in", keyPath])
        #expect(sec1.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        #expect(try McuBootPublicKey(pemRepresentation: sec1) == p256)
        let sec1DER = try OpenSSL.runBinary(["ec", "-in", keyPath, "-outform", "DER"])
        #expect(try McuBootPublicKey(keyFile: sec1DER) == p256)
    }

    @Test("non-RSA and malformed DER never reach swift-crypto's RSA parser (which frees twice on failure): no crash")
    func noDoubleFree() throws {
        let rsa = try Self.der(ofPEM: Fixtures.text("keys/rsa-2048.pub.pem"))
        var inputs: [[UInt8]] = [
            Array(P384.Signing.PrivateKey().publicKey.derRepresentation), Array(P256.Signing.PrivateKey().derRepresentation),
            try Self.der(ofPEM: Fixtures.text("keys/ed25519.pem")), [0x30, 0x00], [0x30, 0x03, 0x02, 0x01, 0x01],
        ]
        var generator = SeededGenerator(seed: 16)
        for _ in 0..<200 {
            var mutated = rsa
            mutated[Int.random(in: 0..<mutated.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
            inputs.append(mutated)
            inputs.append(Array(rsa.prefix(Int.random(in: 1..<rsa.count, using: &generator))))
        }
        var accepted = 0
        for input in inputs {
            if let key = try? McuBootPublicKey(keyFile: input) {
                accepted += 1
                // Whatever was accepted is a whole key of a supported algorithm.
                #expect(!key.rawRepresentation.isEmpty)
            }
        }
        #expect(accepted < inputs.count)
    }

    @Test("bad key files are refused with invalidKey")
    func badKeys() throws {
        func isInvalidKey(_ body: () throws -> Void) -> Bool {
            if case .invalidKey = mcuBootError(body) { return true }
            return false
        }
        #expect(isInvalidKey { _ = try McuBootPublicKey(pemRepresentation: "not a key") })
        #expect(isInvalidKey { _ = try McuBootPublicKey(pemRepresentation: "-----BEGIN PUBLIC KEY-----\n!!!\n-----END PUBLIC KEY-----\n") })
        #expect(isInvalidKey { _ = try McuBootPublicKey(pemRepresentation: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") })
        #expect(isInvalidKey { _ = try McuBootPublicKey(pemRepresentation: "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n") })
        #expect(isInvalidKey { _ = try McuBootPublicKey(keyFile: []) })
        #expect(isInvalidKey { _ = try McuBootPublicKey(keyFile: Array("hello".utf8)) })
        #expect(isInvalidKey { _ = try McuBootPublicKey(keyFile: [0x30, 0x82, 0xff, 0xff, 0x01]) })
        // Valid keys MCUboot cannot use: P-384, and RSA of another size.
        let p384 = P384.Signing.PrivateKey()
        #expect(isInvalidKey { _ = try McuBootPublicKey(pemRepresentation: p384.publicKey.pemRepresentation) })
        #expect(isInvalidKey { _ = try McuBootPublicKey(keyFile: Array(p384.derRepresentation)) })
        let rsa1024 = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        let error = mcuBootError { _ = try McuBootPublicKey(pemRepresentation: rsa1024.publicKey.pemRepresentation) }
        guard case .invalidKey(let reason) = error else { Issue.record("expected invalidKey, got \(String(describing: error))"); return }
        #expect(reason.contains("1024"))
        // A truncated DER public key.
        let der = try Self.der(ofPEM: Fixtures.text("keys/rsa-3072.pub.pem"))
        #expect(isInvalidKey { _ = try McuBootPublicKey(keyFile: Array(der.prefix(100))) })
        #expect(isInvalidKey { _ = try McuBootPublicKey(algorithm: .ed25519, rawRepresentation: [1, 2, 3]) })
        #expect(isInvalidKey { _ = try McuBootPublicKey(algorithm: .ecdsaP256, rawRepresentation: Array(repeating: 4, count: 65)) })
        #expect(isInvalidKey { _ = try McuBootPublicKey(algorithm: .rsa3072, rawRepresentation: Array(try _RSA.Signing.PublicKey(pemRepresentation: Fixtures.text("keys/rsa-2048.pub.pem")).pkcs1DERRepresentation)) })
        #expect(isInvalidKey { _ = try McuBootSigningKey(pemRepresentation: "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----") })
    }
}

/// The system's `openssl` command, an independent writer of key files.
enum OpenSSL {
    static func runBinary(_ arguments: [String]) throws -> [UInt8] {
        let (status, output) = try ChildProcess.run("openssl", arguments)
        try #require(status == 0, "openssl \(arguments) failed")
        return Array(output)
    }

    static func run(_ arguments: [String]) throws -> String {
        String(decoding: try runBinary(arguments), as: UTF8.self)
    }
}
