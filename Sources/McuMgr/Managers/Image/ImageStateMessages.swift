/// Image state response (group 1, command 0), to a read and to a test/confirm write:
/// `{"images": [slot, ...], "splitStatus": int (optional)}`.
public struct ImageStateResponse: Codable, Sendable, Equatable {
    /// The slots holding a valid image, each image's slots in ascending order.
    public var images: [ImageSlot]
    /// Split-image status (always 0 on Zephyr; often absent).
    public var splitStatus: Int?

    /// Makes a response.
    public init(images: [ImageSlot], splitStatus: Int? = nil) {
        self.images = images
        self.splitStatus = splitStatus
    }

    /// Reads the response; `images` is required (a device with no valid image sends an empty
    /// list), so an empty answer is an invalid response, not an empty table.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        images = try c.decode([ImageSlot].self, forKey: .images)
        splitStatus = try c.decodeIfPresent(Int.self, forKey: .splitStatus)
    }

    private enum CodingKeys: String, CodingKey { case images, splitStatus }
}

/// Image state write request (group 1, command 0): `{"hash": bstr, "confirm": bool}`.
public struct ImageStateWriteRequest: Codable, Sendable, Equatable {
    /// The slot's image hash (SHA-256 TLV); `nil` with `confirm` confirms the running image.
    public var hash: [UInt8]?
    /// `false`: test the image at the next boot (reverts unless confirmed); `true`: make it permanent / confirm it.
    public var confirm: Bool

    /// Makes a request.
    public init(hash: [UInt8]?, confirm: Bool) {
        self.hash = hash
        self.confirm = confirm
    }

    /// Reads a request.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hash = try c.decodeByteStringIfPresent(forKey: .hash)
        confirm = try c.decodeIfPresent(Bool.self, forKey: .confirm) ?? false
    }

    /// Writes the hash as a byte string, left out when `nil`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeByteStringIfPresent(hash, forKey: .hash)
        try c.encode(confirm, forKey: .confirm)
    }

    private enum CodingKeys: String, CodingKey { case hash, confirm }
}
