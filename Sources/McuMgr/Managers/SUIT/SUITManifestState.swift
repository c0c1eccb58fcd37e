import CBOR
import Hex

/// The configuration of a supported manifest and what the device has installed for its role
/// (SUIT command 1). Without `digest` the manifest is not installed, or damaged, and the other
/// installed fields mean nothing.
public struct SUITManifestState: Decodable, Encodable, Sendable, Hashable {
    /// `class_id`: the UUID of the manifest's class.
    public var classID: [UInt8]?
    /// `vendor_id`: the UUID of the vendor.
    public var vendorID: [UInt8]?
    /// `downgrade_prevention_policy`.
    public var downgradePreventionPolicy: Int?
    /// `independent_updateability_policy`.
    public var independentUpdateabilityPolicy: Int?
    /// `signature_verification_policy`.
    public var signatureVerificationPolicy: Int?
    /// `digest`: the installed manifest's digest.
    public var digest: [UInt8]?
    /// `digest_algorithm`: a COSE algorithm id (−16 SHA-256).
    public var digestAlgorithm: Int?
    /// `signature_check`: the signature check's status.
    public var signatureCheck: Int?
    /// `sequence_number`: the installed manifest's sequence number.
    public var sequenceNumber: UInt64?
    /// `semantic_version`: up to five integers (1.17.5-rc.2 is `[1, 17, 5, -1, 2]`).
    public var semanticVersion: [Int]?

    /// Whether a valid manifest is installed for the role.
    public var isInstalled: Bool { digest != nil }

    enum CodingKeys: String, CodingKey {
        case classID = "class_id", vendorID = "vendor_id"
        case downgradePreventionPolicy = "downgrade_prevention_policy"
        case independentUpdateabilityPolicy = "independent_updateability_policy"
        case signatureVerificationPolicy = "signature_verification_policy"
        case digest, digestAlgorithm = "digest_algorithm", signatureCheck = "signature_check"
        case sequenceNumber = "sequence_number", semanticVersion = "semantic_version"
    }

    /// Reads the answer (byte strings as byte strings; unknown keys ignored).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        classID = try c.decodeByteStringIfPresent(forKey: .classID)
        vendorID = try c.decodeByteStringIfPresent(forKey: .vendorID)
        downgradePreventionPolicy = try c.decodeIfPresent(Int.self, forKey: .downgradePreventionPolicy)
        independentUpdateabilityPolicy = try c.decodeIfPresent(Int.self, forKey: .independentUpdateabilityPolicy)
        signatureVerificationPolicy = try c.decodeIfPresent(Int.self, forKey: .signatureVerificationPolicy)
        digest = try c.decodeByteStringIfPresent(forKey: .digest)
        digestAlgorithm = try c.decodeIfPresent(Int.self, forKey: .digestAlgorithm)
        signatureCheck = try c.decodeIfPresent(Int.self, forKey: .signatureCheck)
        sequenceNumber = try c.decodeIfPresent(UInt64.self, forKey: .sequenceNumber)
        semanticVersion = try c.decodeIfPresent([Int].self, forKey: .semanticVersion)
    }

    /// Writes the state as the device does (byte strings as byte strings, hex text in JSON).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeByteStringIfPresent(classID, forKey: .classID)
        try c.encodeByteStringIfPresent(vendorID, forKey: .vendorID)
        try c.encodeIfPresent(downgradePreventionPolicy, forKey: .downgradePreventionPolicy)
        try c.encodeIfPresent(independentUpdateabilityPolicy, forKey: .independentUpdateabilityPolicy)
        try c.encodeIfPresent(signatureVerificationPolicy, forKey: .signatureVerificationPolicy)
        try c.encodeByteStringIfPresent(digest, forKey: .digest)
        try c.encodeIfPresent(digestAlgorithm, forKey: .digestAlgorithm)
        try c.encodeIfPresent(signatureCheck, forKey: .signatureCheck)
        try c.encodeIfPresent(sequenceNumber, forKey: .sequenceNumber)
        try c.encodeIfPresent(semanticVersion, forKey: .semanticVersion)
    }

    /// Makes a state (as a simulator answers it).
    public init(
        classID: [UInt8]? = nil, vendorID: [UInt8]? = nil, digest: [UInt8]? = nil, digestAlgorithm: Int? = nil,
        sequenceNumber: UInt64? = nil, semanticVersion: [Int]? = nil
    ) {
        self.classID = classID
        self.vendorID = vendorID
        self.digest = digest
        self.digestAlgorithm = digestAlgorithm
        self.sequenceNumber = sequenceNumber
        self.semanticVersion = semanticVersion
    }

    /// The semantic version as text: `1.17.5-rc.2` (SUIT's negative pre-release markers: −1 rc, −2 beta, −3 alpha).
    public var versionText: String? {
        guard let parts = semanticVersion, !parts.isEmpty else { return nil }
        var text = parts.prefix { $0 >= 0 }.map(String.init).joined(separator: ".")
        let rest = parts.drop { $0 >= 0 }
        if let marker = rest.first {
            let label = [-1: "rc", -2: "beta", -3: "alpha"][marker] ?? "pre\(-marker)"
            text += "-" + ([label] + rest.dropFirst().map(String.init)).joined(separator: ".")
        }
        return text
    }

    /// A UUID's 16 bytes as `8-4-4-4-12` hex text; other lengths as plain hex.
    public static func uuidText(_ bytes: [UInt8]) -> String {
        let hex = bytes.hexString
        guard bytes.count == 16 else { return hex }
        let cuts = [8, 12, 16, 20]
        var text = ""
        for (offset, character) in hex.enumerated() {
            if cuts.contains(offset) { text += "-" }
            text.append(character)
        }
        return text
    }
}
