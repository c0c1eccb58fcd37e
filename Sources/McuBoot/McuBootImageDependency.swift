/// A `DEPENDENCY` TLV (0x40): this image needs image `imageID` at `minimumVersion` or later.
public struct McuBootImageDependency: Sendable, Hashable {
    /// Index of the image depended on.
    public var imageID: UInt8
    /// The lowest acceptable version of that image.
    public var minimumVersion: McuBootVersion

    /// Creates a dependency.
    public init(imageID: UInt8, minimumVersion: McuBootVersion) {
        self.imageID = imageID
        self.minimumVersion = minimumVersion
    }

    /// Decodes the 12-byte TLV value (`struct image_dependency`); nil when it is not 12 bytes.
    public init?(tlvValue value: [UInt8]) {
        guard value.count == 12, let version = McuBootVersion(imageVersionAt: 4, in: value) else { return nil }
        self.init(imageID: value[0], minimumVersion: version)
    }

    /// The 12-byte TLV value: image id, 3 pad bytes, then the version (as imgtool writes it).
    public var tlvValue: [UInt8] {
        [imageID, 0, 0, 0] + minimumVersion.imageVersionBytes
    }
}
