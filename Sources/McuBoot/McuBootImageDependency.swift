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
        guard value.count == 12, let revision = value.le16(at: 6), let build = value.le32(at: 8) else {
            return nil
        }
        self.init(
            imageID: value[0],
            minimumVersion: McuBootVersion(major: value[4], minor: value[5], revision: revision, build: build))
    }

    /// The 12-byte TLV value: image id, 3 pad bytes, then the version (as imgtool writes it).
    public var tlvValue: [UInt8] {
        var out: [UInt8] = [imageID, 0, 0, 0, minimumVersion.major, minimumVersion.minor]
        out.appendLE16(minimumVersion.revision)
        out.appendLE32(minimumVersion.build)
        return out
    }
}
