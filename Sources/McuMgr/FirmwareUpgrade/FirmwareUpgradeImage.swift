import McuBoot

/// One image of an upgrade: the MCUboot image and the image number it goes to.
public struct FirmwareUpgradeImage: Sendable, Hashable {
    /// The image number on the device (0 = application core; 1… for further cores or images).
    public var index: Int
    /// The parsed MCUboot image.
    public var image: McuBootImage
    /// For a direct-XIP build, the slot (0 or 1) the image is built to run from; nil: any slot.
    /// An upgrade may hold one image per slot of an image number and sends the one for the slot
    /// the device is not running from.
    public var slot: Int?

    /// Makes an upgrade image from a parsed MCUboot image.
    public init(index: Int = 0, image: McuBootImage, slot: Int? = nil) {
        self.index = index
        self.image = image
        self.slot = slot
    }

    /// Parses the file's bytes; a malformed image throws before anything is sent.
    public init(index: Int = 0, bytes: [UInt8]) throws(McuBootError) {
        self.init(index: index, image: try McuBootImage(bytes: bytes))
    }

    /// The upgrade images of an MCUboot DFU package: each image with its image number and slot.
    public static func images(of package: FirmwarePackage) -> [FirmwareUpgradeImage] {
        package.images.map { FirmwareUpgradeImage(index: $0.index, image: $0.image, slot: $0.slot) }
    }
}
