/// One image's slots and sizes (image group command 6, slot info).
public struct ImageSlotInfo: Codable, Sendable, Equatable {
    /// One slot of the image.
    public struct Slot: Codable, Sendable, Equatable {
        /// The slot number (0 or 1).
        public var slot: Int
        /// The slot's size in bytes.
        public var size: Int
        /// The `image` value that uploads to this slot (devices with direct upload only).
        public var uploadImageID: Int?

        /// Makes a slot record.
        public init(slot: Int, size: Int, uploadImageID: Int? = nil) {
            self.slot = slot
            self.size = size
            self.uploadImageID = uploadImageID
        }

        private enum CodingKeys: String, CodingKey {
            case slot, size, uploadImageID = "upload_image_id"
        }
    }

    /// The image number.
    public var image: Int
    /// The image's slots.
    public var slots: [Slot]
    /// The largest image the device accepts for it, when the device knows.
    public var maxImageSize: Int?

    /// Makes an image record.
    public init(image: Int, slots: [Slot], maxImageSize: Int? = nil) {
        self.image = image
        self.slots = slots
        self.maxImageSize = maxImageSize
    }

    /// Reads a record; an absent image number reads as 0, and `slots` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        image = try c.decodeIfPresent(Int.self, forKey: .image) ?? 0
        slots = try c.decode([Slot].self, forKey: .slots)
        maxImageSize = try c.decodeIfPresent(Int.self, forKey: .maxImageSize)
    }

    private enum CodingKeys: String, CodingKey {
        case image, slots, maxImageSize = "max_image_size"
    }
}

/// Image slot info response: `{"images": [ImageSlotInfo, ...]}`.
public struct ImageSlotInfoResponse: Codable, Sendable, Equatable {
    /// One record per image.
    public var images: [ImageSlotInfo]

    /// Makes a response.
    public init(images: [ImageSlotInfo]) { self.images = images }
}
