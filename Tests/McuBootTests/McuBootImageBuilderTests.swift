import Crypto
import Foundation
import McuBoot
import Testing

/// The Swift image builder makes the same bytes as `imgtool create`.
@Suite("MCUboot image builder")
struct McuBootImageBuilderTests {
    /// The builder settings that correspond to each committed fixture's imgtool arguments.
    static func builder(for entry: Fixtures.Entry) throws -> McuBootImageBuilder {
        let payload = try Fixtures.bytes(entry.payload)
        let version = try #require(McuBootVersion(string: entry.version))
        var builder = McuBootImageBuilder(payload: payload, version: version)
        if let key = entry.key {
            builder.signingKey = try McuBootSigningKey(pemRepresentation: Fixtures.text(key))
        }
        switch entry.name {
        case "unsigned", "build-version", "signed-ed25519", "signed-ecdsa-p256-seccnt":
            break
        case "header-0x200", "signed-ecdsa-p256":
            builder.headerSize = 0x200
        case "zero-header":
            // imgtool without --pad-header on an input that starts with 0x200 zero bytes.
            builder.headerSize = 0x200
            builder.headerPadding = 0
            builder.payload = Array(payload.dropFirst(0x200))
        case "protected-tlvs":
            builder.securityCounter = 42
            builder.dependencies = [McuBootImageDependency(imageID: 1, minimumVersion: McuBootVersion(string: "2.3.4+5")!)]
            builder.customTLVs = [
                McuBootTLV(type: McuBootTLVType(0xa0), value: [1, 2, 3, 4, 5]),
                McuBootTLV(type: McuBootTLVType(0xa1), value: Array("hello".utf8)),
            ]
        case "flags":
            builder.isBootable = false
            builder.ramLoadAddress = 0x2000_8000
        case "sha384":
            builder.hashAlgorithm = .sha384
        case "padded-confirm":
            builder.slotPadding = McuBootSlotPadding(slotSize: 0x1000, align: 4, maxSectors: 16, mark: .confirm)
        case "signed-ed25519-sha512-full":
            builder.hashAlgorithm = .sha512
            builder.publicKeyFormat = .full
        default:
            Issue.record("no builder settings for fixture \(entry.name); add them here")
        }
        if entry.name == "signed-ecdsa-p256-seccnt" {
            builder.securityCounter = version.defaultSecurityCounter
        }
        return builder
    }

    /// Unsigned and Ed25519 images (the builder does not sign with RSA; ECDSA is randomised).
    static let deterministic = Fixtures.entries.filter { $0.key == nil || $0.key?.contains("ed25519") == true }
    static let ecdsa = Fixtures.entries.filter { $0.key?.contains("ecdsa") == true }

    @Test("byte-identical to the committed imgtool images", arguments: deterministic)
    func matchesFixture(entry: Fixtures.Entry) throws {
        #if !os(Linux)
            // Apple's CryptoKit randomises Ed25519 signatures; BoringSSL (Linux) does not.
            guard entry.key == nil else { return }
        #endif
        let built = try Self.builder(for: entry).build()
        let expected = try Fixtures.bytes(entry.image)
        #expect(built.count == expected.count)
        #expect(built == expected, "first difference at \(firstDifference(built, expected))")
    }

    @Test("ECDSA: identical up to the randomised signature, which verifies", arguments: ecdsa)
    func ecdsaMatchesFixture(entry: Fixtures.Entry) throws {
        let built = try Self.builder(for: entry).buildImage()
        let expected = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        #expect(built.header == expected.header)
        #expect(Array(built.bytes[built.hashedRange]) == Array(expected.bytes[expected.hashedRange]))
        #expect(built.protectedTLVs == expected.protectedTLVs)
        #expect(built.unprotectedTLVs.map(\.type) == expected.unprotectedTLVs.map(\.type))
        #expect(Array(built.unprotectedTLVs.dropLast()) == Array(expected.unprotectedTLVs.dropLast()))
        try built.verifySignature(publicKey: McuBootPublicKey(pemRepresentation: Fixtures.text(entry.publicKey!)))
    }

    /// One imgtool configuration checked live against the venv's imgtool.
    struct LiveCase: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let key: String?
        let configure: @Sendable (inout McuBootImageBuilder) throws -> Void
        var testDescription: String { (arguments + (key.map { ["-k", $0] } ?? [])).joined(separator: " ") }
    }

    static let liveCases: [LiveCase] = [
        LiveCase(arguments: ["-v", "1.2.3", "-H", "0x200", "--pad-header"], key: nil) { $0.headerSize = 0x200 },
        LiveCase(arguments: ["-v", "0.0.1+65536", "-H", "0x20", "--pad-header", "--align", "4"], key: nil) { _ in },
        LiveCase(arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "--security-counter", "0x01020304"], key: nil) {
            $0.securityCounter = 0x0102_0304
        },
        LiveCase(arguments: ["-v", "5.6.7+8", "-H", "0x80", "--pad-header", "--security-counter", "auto"], key: nil) {
            $0.headerSize = 0x80
            $0.securityCounter = $0.version.defaultSecurityCounter
        },
        LiveCase(arguments: ["-v", "2.0.0", "-H", "0x20", "--pad-header", "--dependencies", "(0,1.0.0),(2,3.4.5+6)"], key: nil) {
            $0.dependencies = [
                McuBootImageDependency(imageID: 0, minimumVersion: McuBootVersion(major: 1)),
                McuBootImageDependency(imageID: 2, minimumVersion: McuBootVersion(major: 3, minor: 4, revision: 5, build: 6)),
            ]
        },
        LiveCase(
            arguments: [
                "-v", "1.1.1", "-H", "0x20", "--pad-header", "--vid", "12345678-1234-5678-1234-567812345678",
                "--cid", "00112233445566778899aabbccddeeff", "--custom-tlv", "0xfffe", "0xdeadbeef", "-s", "1",
            ], key: nil
        ) {
            $0.securityCounter = 1
            $0.vendorUUID = bytes(hex: "12345678123456781234567812345678")
            $0.classUUID = bytes(hex: "00112233445566778899aabbccddeeff")
            $0.customTLVs = [McuBootTLV(type: McuBootTLVType(0xfffe), value: [0xde, 0xad, 0xbe, 0xef])]
        },
        LiveCase(arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "--rom-fixed", "0x8000", "--non-bootable"], key: nil) {
            $0.romFixedAddress = 0x8000
            $0.isBootable = false
        },
        LiveCase(arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "--sha", "512"], key: nil) { $0.hashAlgorithm = .sha512 },
        LiveCase(arguments: ["-v", "3.2.1", "-H", "0x100", "--pad-header", "-R", "0", "--pad", "-S", "0x1000", "-M", "8"], key: nil) {
            $0.headerSize = 0x100
            $0.headerPadding = 0
            $0.slotPadding = McuBootSlotPadding(slotSize: 0x1000, maxSectors: 8, erasedValue: 0)
        },
        LiveCase(arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "--test", "-S", "0x2000", "--align", "2", "-M", "8"], key: nil) {
            $0.slotPadding = McuBootSlotPadding(slotSize: 0x2000, align: 2, maxSectors: 8, mark: .test)
        },
        LiveCase(arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "--confirm", "-S", "0x2000", "--align", "32", "-M", "4"], key: nil) {
            $0.slotPadding = McuBootSlotPadding(slotSize: 0x2000, align: 32, maxSectors: 4, mark: .confirm)
        },
        LiveCase(
            arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "--confirm", "-S", "0x2000", "--align", "8", "--max-align", "16", "-M", "4"],
            key: nil
        ) {
            $0.slotPadding = McuBootSlotPadding(slotSize: 0x2000, align: 8, maxAlign: 16, maxSectors: 4, mark: .confirm)
        },
        LiveCase(arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "--confirm", "--overwrite-only", "-S", "0x1000"], key: nil) {
            $0.slotPadding = McuBootSlotPadding(slotSize: 0x1000, overwriteOnly: true, mark: .confirm)
        },
        LiveCase(arguments: ["-v", "9.8.7+6", "-H", "0x200", "--pad-header", "-s", "auto"], key: "keys/ed25519.pem") {
            $0.headerSize = 0x200
            $0.securityCounter = $0.version.defaultSecurityCounter
        },
        LiveCase(arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "--sha", "512", "--public-key-format", "full"], key: "keys/ed25519.pem") {
            $0.hashAlgorithm = .sha512
            $0.publicKeyFormat = .full
        },
    ]

    /// 1237 bytes: not a multiple of any alignment, to show that imgtool does not pad the payload.
    static let livePayload: [UInt8] = {
        var rng = SeededGenerator(seed: 7)
        return (0..<1237).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }()

    @Test("byte-identical to imgtool create run now", arguments: liveCases)
    func matchesImgtool(live: LiveCase) throws {
        guard Imgtool.available() else { return }
        #if !os(Linux)
            guard live.key == nil else { return }
        #endif
        let keyPath = live.key.map { Fixtures.directory.appendingPathComponent($0).path }
        // imgtool requires --slot-size even when it does not pad; without --pad it only checks the size.
        let slotSize = live.arguments.contains("-S") ? [] : ["-S", "0x20000"]
        let expected = try Imgtool.create(
            payload: Self.livePayload, arguments: live.arguments + slotSize + (keyPath.map { ["-k", $0] } ?? []))
        let version = try #require(McuBootVersion(string: live.arguments[1]))
        var builder = McuBootImageBuilder(payload: Self.livePayload, version: version)
        if let key = live.key {
            builder.signingKey = try McuBootSigningKey(pemRepresentation: Fixtures.text(key))
        }
        try live.configure(&builder)
        let built = try builder.build()
        #expect(built.count == expected.count)
        #expect(built == expected, "first difference at \(firstDifference(built, expected))")
        try McuBootImage(bytes: built).verifyHash()
    }

    @Test("imgtool verify accepts builder-signed ECDSA and Ed25519 images", arguments: ["keys/ecdsa-p256.pem", "keys/ed25519.pem"])
    func imgtoolVerifiesBuilderSignatures(key: String) throws {
        guard Imgtool.available() else { return }
        var builder = McuBootImageBuilder(payload: Self.livePayload, version: McuBootVersion(major: 1, minor: 0, revision: 2))
        builder.signingKey = try McuBootSigningKey(pemRepresentation: Fixtures.text(key))
        builder.securityCounter = 3
        let bytes = try builder.build()
        #expect(try Imgtool.verify(image: bytes, keyPath: Fixtures.directory.appendingPathComponent(key).path))
        // And a flipped payload byte makes imgtool refuse it too.
        var tampered = bytes
        tampered[100] ^= 1
        #expect(try !Imgtool.verify(image: tampered, keyPath: Fixtures.directory.appendingPathComponent(key).path))
    }

    @Test("signed builder images verify with swift-crypto keys")
    func signedRoundTrip() throws {
        let p256 = P256.Signing.PrivateKey()
        let ed = Curve25519.Signing.PrivateKey()
        for (key, publicKey) in [(McuBootSigningKey(p256), McuBootPublicKey(p256.publicKey)), (McuBootSigningKey(ed), McuBootPublicKey(ed.publicKey))] {
            var builder = McuBootImageBuilder(payload: Array(repeating: 0xa5, count: 777), version: McuBootVersion(major: 1))
            builder.signingKey = key
            let image = try builder.buildImage()
            try image.verifyHash()
            try image.verifySignature(publicKey: publicKey)
            #expect(image.signatures.map(\.kind) == [key.algorithm.signatureKind])
            #expect(image.tlvs(ofType: .keyHash).first?.value == publicKey.keyHash())
            #expect(key.publicKey == publicKey)
        }
    }

    @Test("an empty payload makes a valid image")
    func emptyPayload() throws {
        let image = try McuBootImageBuilder(payload: [], version: McuBootVersion(major: 0)).buildImage()
        #expect(image.header.imageSize == 0)
        try image.verifyHash()
    }

    @Test("invalid settings throw invalidBuilderParameter")
    func invalidSettings() throws {
        let base = McuBootImageBuilder(payload: [1, 2, 3], version: McuBootVersion(major: 1))
        let cases: [(String, (inout McuBootImageBuilder) -> Void)] = [
            ("header size below 32", { $0.headerSize = 16 }),
            ("header size above 0xffff", { $0.headerSize = 0x10000 }),
            ("both RAM load and ROM fixed", { $0.ramLoadAddress = 1; $0.romFixedAddress = 2 }),
            ("custom TLV type below 0xa0", { $0.customTLVs = [McuBootTLV(type: .sha256, value: [])] }),
            ("custom TLV type 0xffff", { $0.customTLVs = [McuBootTLV(type: McuBootTLVType(0xffff), value: [])] }),
            ("duplicate custom TLV", { $0.customTLVs = [McuBootTLV(type: McuBootTLVType(0xa0), value: []), McuBootTLV(type: McuBootTLVType(0xa0), value: [1])] }),
            ("custom TLV too long", { $0.customTLVs = [McuBootTLV(type: McuBootTLVType(0xa0), value: Array(repeating: 0, count: 0x10000))] }),
            ("protected area too long", { $0.customTLVs = (0..<2).map { McuBootTLV(type: McuBootTLVType(0xa0 + UInt16($0)), value: Array(repeating: 0, count: 0x8000)) } }),
            ("vendor UUID not 16 bytes", { $0.vendorUUID = [1, 2, 3] }),
            ("ECDSA with SHA-512", { $0.signingKey = McuBootSigningKey(P256.Signing.PrivateKey()); $0.hashAlgorithm = .sha512 }),
            ("Ed25519 with SHA-384", { $0.signingKey = McuBootSigningKey(Curve25519.Signing.PrivateKey()); $0.hashAlgorithm = .sha384 }),
            ("slot too small", { $0.slotPadding = McuBootSlotPadding(slotSize: 0x100) }),
            ("align 3", { $0.slotPadding = McuBootSlotPadding(slotSize: 0x10000, align: 3) }),
            ("max align 4", { $0.slotPadding = McuBootSlotPadding(slotSize: 0x10000, maxAlign: 4) }),
            ("erased value 0x55", { $0.slotPadding = McuBootSlotPadding(slotSize: 0x10000, erasedValue: 0x55) }),
        ]
        for (name, change) in cases {
            var builder = base
            change(&builder)
            let error = mcuBootError { _ = try builder.build() }
            guard case .invalidBuilderParameter(let reason) = error else {
                Issue.record("\(name): expected invalidBuilderParameter, got \(String(describing: error))")
                continue
            }
            #expect(!reason.isEmpty, "\(name)")
        }
    }
}
