import McuBoot
import SMP

/// The checks an upgrade runs in its validate step, before the first chunk: each image's
/// signature against the configured keys, then whether each image fits the device.
public struct FirmwareUpgradeFitCheck: Sendable {
    /// What the device says about its images.
    public struct Device: Sendable, Equatable {
        /// The slot table (image state read).
        public var slots: [ImageSlot]
        /// Slot sizes (image slot info); nil when the device does not support the command.
        public var slotInfo: [ImageSlotInfo]?
        /// The running images' security counters, by image number, for devices that report one
        /// (an optional `security_counter` in a slot of the state read; Zephyr does not send it).
        public var securityCounters: [Int: UInt32]

        /// Makes a device description.
        public init(slots: [ImageSlot], slotInfo: [ImageSlotInfo]? = nil, securityCounters: [Int: UInt32] = [:]) {
            self.slots = slots
            self.slotInfo = slotInfo
            self.securityCounters = securityCounters
        }
    }

    /// The session to the device.
    public let client: SMPClient
    /// The images of the upgrade.
    public let images: [FirmwareUpgradeImage]
    /// The upgrade's configuration (keys, downgrade rule).
    public let configuration: FirmwareUpgradeConfiguration

    /// Makes the checks of an upgrade.
    public init(client: SMPClient, images: [FirmwareUpgradeImage], configuration: FirmwareUpgradeConfiguration) {
        self.client = client
        self.images = images
        self.configuration = configuration
    }

    /// Verifies the signatures, reads the device's image state and slot info, and throws the
    /// first problem; returns the slot table. Nothing is uploaded.
    public func validate(state: FirmwareUpgradeState = .validate, options: SMPRequestOptions = SMPRequestOptions()) async throws -> [ImageSlot] {
        try Self.verifySignatures(of: images, keys: configuration.signatureKeys, state: state)
        let device = try await readDevice(options: options)
        if let problem = Self.problem(images: images, device: device, rejectsDowngrade: configuration.rejectsDowngrade) {
            if case .notNewer(let image, let running, let new) = problem {
                throw FirmwareUpgradeError(state: state, reason: .downgradeRefused(image: image, running: running, new: new))
            }
            throw FirmwareUpgradeError(state: state, reason: .doesNotFit(problem))
        }
        return device.slots
    }

    /// Checks each image's signature against `keys` (any may match); no check when `keys` is empty.
    public static func verifySignatures(
        of images: [FirmwareUpgradeImage], keys: [McuBootPublicKey], state: FirmwareUpgradeState = .none
    ) throws(FirmwareUpgradeError) {
        guard !keys.isEmpty else { return }
        for image in images {
            do {
                try image.image.verifySignature(keys: keys)
            } catch {
                throw FirmwareUpgradeError(state: state, reason: .signatureRejected(image: image.index, error))
            }
        }
    }

    /// Reads the image state (with any security counters) and the slot info (nil when the device refuses it).
    public func readDevice(options: SMPRequestOptions = SMPRequestOptions()) async throws -> Device {
        let state = try await client.send(ImageStateWithCountersRead(), options: options)
        var counters: [Int: UInt32] = [:]
        for entry in state.images where entry.slot.active {
            if let counter = entry.securityCounter { counters[entry.slot.image] = counter }
        }
        // Slot info is optional (newer Zephyr only): any refusal by the device means "unknown".
        var slotInfo: [ImageSlotInfo]?
        do throws(SMPError) {
            slotInfo = try await client.send(ImageSlotInfoRead(), options: options).images
        } catch {
            guard case .device = error else { throw error }
            slotInfo = nil
        }
        return Device(slots: state.images.map(\.slot), slotInfo: slotInfo, securityCounters: counters)
    }

    /// The first reason one of `images` cannot go to `device`, or nil when all fit.
    ///
    /// In order: an image number the device lacks; a file larger than the upload slot (or the
    /// maximum image size); a dependency on its own image number, on an image the device lacks,
    /// or on a version neither the device nor the upgrade has (major.minor.revision, as MCUboot
    /// compares by default); with `rejectsDowngrade`, a version not newer than the running one;
    /// a security counter lower than the running image's, when the device reports one.
    public static func problem(
        images: [FirmwareUpgradeImage], device: Device, rejectsDowngrade: Bool
    ) -> FirmwareUpgradeFitProblem? {
        var known = Set(device.slots.map(\.image))
        known.formUnion(device.slotInfo?.map(\.image) ?? [])
        let wanted = Set(images.map(\.index))
        if wanted != [0], let missing = wanted.subtracting(known).sorted().first {
            return .noSuchImage(image: missing, available: known.sorted())
        }
        for image in images {
            if let problem = sizeProblem(image, device: device)
                ?? dependencyProblem(image, images: images, device: device, known: known)
                ?? (rejectsDowngrade ? downgradeProblem(image, device: device) : nil)
                ?? securityCounterProblem(image, device: device)
            {
                return problem
            }
        }
        return nil
    }

    // MARK: The checks

    private static func running(_ index: Int, in device: Device) -> ImageSlot? {
        device.slots.first { $0.image == index && $0.active }
    }

    private static func sizeProblem(_ image: FirmwareUpgradeImage, device: Device) -> FirmwareUpgradeFitProblem? {
        guard let info = device.slotInfo?.first(where: { $0.image == image.index }) else { return nil }
        let limits = [info.slots.first { $0.slot == 1 }?.size, info.maxImageSize].compactMap { $0 }
        guard let limit = limits.min(), image.image.bytes.count > limit else { return nil }
        return .imageTooLarge(image: image.index, size: image.image.bytes.count, limit: limit)
    }

    private static func dependencyProblem(
        _ image: FirmwareUpgradeImage, images: [FirmwareUpgradeImage], device: Device, known: Set<Int>
    ) -> FirmwareUpgradeFitProblem? {
        for dependency in image.image.dependencies {
            let other = Int(dependency.imageID)
            if other == image.index { return .dependsOnItself(image: image.index, minimumVersion: dependency.minimumVersion) }
            let inUpgrade = images.first { $0.index == other }
            // Without slot info the device's image list may be incomplete: only refuse what it shows.
            if inUpgrade == nil, !known.contains(other), device.slotInfo != nil {
                return .missingDependency(image: image.index, dependsOn: other)
            }
            let available: (version: McuBootVersion, text: String)?
            if let inUpgrade {
                available = (inUpgrade.image.version, inUpgrade.image.version.deviceString)
            } else if let slot = running(other, in: device), let version = McuBootVersion(string: slot.version) {
                available = (version, slot.version)
            } else {
                available = nil
            }
            let needed = dependency.minimumVersion
            if let available, (available.version.major, available.version.minor, available.version.revision)
                < (needed.major, needed.minor, needed.revision)
            {
                return .unsatisfiedDependency(
                    image: image.index, dependsOn: other, minimumVersion: needed, available: available.text)
            }
        }
        return nil
    }

    private static func downgradeProblem(_ image: FirmwareUpgradeImage, device: Device) -> FirmwareUpgradeFitProblem? {
        guard let slot = running(image.index, in: device), slot.hash != image.image.hash,
              let runningVersion = McuBootVersion(string: slot.version), image.image.version <= runningVersion
        else { return nil }
        return .notNewer(image: image.index, running: slot.version, new: image.image.version.deviceString)
    }

    private static func securityCounterProblem(_ image: FirmwareUpgradeImage, device: Device) -> FirmwareUpgradeFitProblem? {
        guard let runningCounter = device.securityCounters[image.index],
              running(image.index, in: device)?.hash != image.image.hash else { return nil }
        let counter = image.image.securityCounter
        guard counter.map({ $0 < runningCounter }) ?? true else { return nil }
        return .securityCounterTooLow(image: image.index, counter: counter, running: runningCounter)
    }
}

/// The image state read (image command 0), keeping an optional `security_counter` per slot. No
/// Zephyr release sends that key; a device that does gets its counter checked.
private struct ImageStateWithCountersRead: SMPFieldlessRequest {
    typealias Response = StateWithCounters
    static var operation: SMPOperation { ImageStateRead.operation }
    static var group: SMPGroup { ImageStateRead.group }
    static var command: UInt8 { ImageStateRead.command }
}

/// The image state answer with each slot's optional `security_counter`.
private struct StateWithCounters: Decodable, Sendable {
    struct Entry: Decodable, Sendable {
        let slot: ImageSlot
        let securityCounter: UInt32?

        init(from decoder: any Decoder) throws {
            slot = try ImageSlot(from: decoder)
            securityCounter = try decoder.container(keyedBy: Keys.self).decodeIfPresent(UInt32.self, forKey: .securityCounter)
        }

        private enum Keys: String, CodingKey { case securityCounter = "security_counter" }
    }

    let images: [Entry]

    /// Reads the response; `images` is required, as in `ImageStateResponse`.
    init(from decoder: any Decoder) throws {
        images = try decoder.container(keyedBy: Keys.self).decode([Entry].self, forKey: .images)
    }

    private enum Keys: String, CodingKey { case images }
}
