import CBOR

/// One image upload chunk (group 1, command 1): `{"off", "data", "len"?, "sha"?, "image"?, "upgrade"?}`.
///
/// `len` is required on the first chunk (`off == 0`); `sha`, `image` and `upgrade` belong to the
/// first chunk only. Keys left `nil` are not sent.
public struct ImageUploadRequest: Codable, CBORValueRepresentable, Sendable, Equatable {
    /// Offset of this chunk in the image file.
    public var offset: Int
    /// The chunk's bytes.
    public var data: [UInt8]
    /// Total size of the image file (first chunk).
    public var length: Int?
    /// SHA-256 of the whole file (first chunk): identifies the upload for resume and the final check.
    public var sha: [UInt8]?
    /// Target image number (first chunk; default 0).
    public var image: Int?
    /// Refuse unless the upload is newer than the running image (first chunk).
    public var upgrade: Bool?

    /// Makes a chunk.
    public init(offset: Int, data: [UInt8], length: Int? = nil, sha: [UInt8]? = nil, image: Int? = nil, upgrade: Bool? = nil) {
        self.offset = offset
        self.data = data
        self.length = length
        self.sha = sha
        self.image = image
        self.upgrade = upgrade
    }

    /// Reads a chunk.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        offset = try c.decode(Int.self, forKey: .offset)
        data = try c.decodeByteString(forKey: .data)
        length = try c.decodeIfPresent(Int.self, forKey: .length)
        sha = try c.decodeByteStringIfPresent(forKey: .sha)
        image = try c.decodeIfPresent(Int.self, forKey: .image)
        upgrade = try c.decodeIfPresent(Bool.self, forKey: .upgrade)
    }

    /// Writes the chunk (``cborValue``).
    public func encode(to encoder: any Encoder) throws {
        try cborValue.encode(to: encoder)
    }

    /// The chunk as a CBOR map, leaving out the keys that are `nil` (built directly: one per chunk).
    public var cborValue: CBORValue {
        .textMap(omittingNil: [
            "off": .int(offset), "data": .bytes(data), "len": length.map(CBORValue.int), "sha": sha.map(CBORValue.bytes),
            "image": image.map(CBORValue.int), "upgrade": upgrade.map(CBORValue.bool),
        ])
    }

    private enum CodingKeys: String, CodingKey {
        case offset = "off", data, length = "len", sha, image, upgrade
    }
}

/// The device's answer to an upload chunk: `{"off": uint, "match": bool (optional, last chunk)}`.
public struct ImageUploadResponse: Codable, Sendable, Equatable {
    /// The next offset the device expects: always continue from here.
    public var offset: Int
    /// On the last chunk, whether the written slot's SHA-256 equals the `sha` of the first chunk.
    public var match: Bool?

    /// Makes a response.
    public init(offset: Int, match: Bool? = nil) {
        self.offset = offset
        self.match = match
    }

    private enum CodingKeys: String, CodingKey { case offset = "off", match }
}
