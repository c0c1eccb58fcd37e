import McuBoot

/// Why an image cannot go to the device, found before the first chunk is sent.
public enum FirmwareUpgradeFitProblem: Sendable, Hashable, CustomStringConvertible {
    /// The device has no image with this number (it has `available`).
    case noSuchImage(image: Int, available: [Int])
    /// The file (`size` bytes) is larger than the image's upload slot or the device's maximum
    /// image size (`limit` bytes), as slot info reports them.
    case imageTooLarge(image: Int, size: Int, limit: Int)
    /// The image depends on its own image number: it was built for another image number.
    case dependsOnItself(image: Int, minimumVersion: McuBootVersion)
    /// The image depends on an image number the device does not have.
    case missingDependency(image: Int, dependsOn: Int)
    /// The image needs image `dependsOn` at `minimumVersion` or later, and neither the device nor
    /// the upgrade has it (`available` is what there is).
    case unsatisfiedDependency(image: Int, dependsOn: Int, minimumVersion: McuBootVersion, available: String)
    /// With downgrades refused: the version is not newer than the running one.
    case notNewer(image: Int, running: String, new: String)
    /// The image's security counter (nil: it has none) is lower than the running image's, so
    /// MCUboot's rollback protection would refuse to boot it.
    case securityCounterTooLow(image: Int, counter: UInt32?, running: UInt32)

    /// The image number the problem is about.
    public var image: Int {
        switch self {
        case .noSuchImage(let image, _), .imageTooLarge(let image, _, _), .dependsOnItself(let image, _),
             .missingDependency(let image, _), .unsatisfiedDependency(let image, _, _, _), .notNewer(let image, _, _),
             .securityCounterTooLow(let image, _, _):
            image
        }
    }

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .noSuchImage(let image, let available):
            return "the device has no image \(image) (it has \(available.map(String.init).joined(separator: ", ")))"
        case .imageTooLarge(let image, let size, let limit):
            return "image \(image) is \(size) bytes, larger than the \(limit) bytes the device's slot takes"
        case .dependsOnItself(let image, let minimum):
            return "image \(image) depends on image \(image) \(minimum) itself: it was built for another image number"
        case .missingDependency(let image, let other):
            return "image \(image) depends on image \(other), which the device does not have: it was built for another device or image number"
        case .unsatisfiedDependency(let image, let other, let minimum, let available):
            return "image \(image) needs image \(other) at version \(minimum) or later, but the device would have \(available); upgrade image \(other) with it"
        case .notNewer(let image, let running, let new):
            return "image \(image) version \(new) is not newer than the running \(running) (downgrade refused)"
        case .securityCounterTooLow(let image, let counter, let running):
            let has = counter.map { "security counter \($0)" } ?? "no security counter"
            return "image \(image) has \(has), lower than the running image's \(running): the bootloader would refuse it"
        }
    }
}
