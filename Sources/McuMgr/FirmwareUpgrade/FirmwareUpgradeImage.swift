import McuBoot

/// One image of an upgrade: the MCUboot image and the image number it goes to.
public struct FirmwareUpgradeImage: Sendable, Hashable {
    /// The image number on the device (0 = application core; 1… for further cores or images).
    public var index: Int
    /// The parsed MCUboot image.
    public var image: McuBootImage

    /// Makes an upgrade image from a parsed MCUboot image.
    public init(index: Int = 0, image: McuBootImage) {
        self.index = index
        self.image = image
    }

    /// Parses the file's bytes; a malformed image throws before anything is sent.
    public init(index: Int = 0, bytes: [UInt8]) throws(McuBootError) {
        self.init(index: index, image: try McuBootImage(bytes: bytes))
    }
}
