/// A DFU package as nRF Connect SDK builds it (`dfu_application.zip`): `manifest.json` and the
/// files it lists, read and checked before anything is sent.
///
/// An MCUboot package holds one image per image number (nRF5340: the application core as image 0,
/// the network core as image 1), or, for a direct-XIP build, one image per slot of an image number.
/// A SUIT package holds one envelope, and may hold resources the device fetches during processing
/// and raw images for SUIT cache partitions.
public struct FirmwarePackage: Sendable, Hashable {
    /// An MCUboot image of the package and where it goes.
    public struct Image: Sendable, Hashable {
        /// The file's name in the package.
        public var file: String
        /// The image number.
        public var index: Int
        /// For a direct-XIP build, the slot (0 or 1) the image is built to run from; nil: any.
        public var slot: Int?
        /// The parsed, hash-checked image.
        public var image: McuBootImage

        /// Makes a package image.
        public init(file: String, index: Int, slot: Int? = nil, image: McuBootImage) {
            self.file = file
            self.index = index
            self.slot = slot
            self.image = image
        }
    }

    /// A raw image for a SUIT cache partition (manifest type `cache`).
    public struct Cache: Sendable, Hashable {
        /// The file's name in the package.
        public var file: String
        /// The cache partition it goes to (SUIT's `target_id`).
        public var target: Int
        /// Its bytes.
        public var bytes: [UInt8]
    }

    /// A SUIT envelope and the name of its file.
    public struct Envelope: Sendable, Hashable {
        /// The file's name (in the package, or the `.suit` file's).
        public var file: String
        /// The parsed envelope.
        public var envelope: SUITEnvelope
    }

    /// The manifest, when the package came from a zip.
    public let manifest: PackageManifest?
    /// The MCUboot images, by image number (and slot).
    public let images: [Image]
    /// The SUIT envelope of a SUIT package, and its file name.
    public let envelope: Envelope?
    /// The SUIT cache images.
    public let caches: [Cache]
    /// Other files of a SUIT package, by name: what the device may ask for as `file://NAME`.
    public let resources: [String: [UInt8]]

    /// Whether this is a SUIT package.
    public var isSUIT: Bool { envelope != nil }

    /// Reads the package in `archive` within `limits`; every problem is a ``FirmwarePackageError``.
    public init(archive: some PackageArchive, limits: FirmwarePackageLimits = FirmwarePackageLimits()) throws(FirmwarePackageError) {
        let entries = archive.entries
        guard let manifestEntry = entries.first(where: { $0.name == "manifest.json" }) else { throw .missingManifest }
        guard manifestEntry.declaredSize <= UInt64(limits.manifestSize) else { throw .tooLarge("manifest.json", limit: limits.manifestSize) }
        let manifest = try PackageManifest(json: try archive.contents(of: manifestEntry, limit: limits.manifestSize))
        guard !manifest.files.isEmpty else { throw .empty }
        guard manifest.files.count <= limits.files else { throw .tooManyFiles(count: manifest.files.count, limit: limits.files) }

        // Every bound is checked on the declared sizes before a byte is inflated.
        var listed: [(file: PackageManifest.File, entry: PackageArchiveEntry)] = []
        var declaredTotal: UInt64 = 0
        for file in manifest.files {
            guard let entry = entries.first(where: { $0.name == file.file }) else { throw .missingFile(file.file) }
            guard entry.declaredSize <= UInt64(limits.fileSize) else { throw .tooLarge(file.file, limit: limits.fileSize) }
            declaredTotal += entry.declaredSize
            listed.append((file, entry))
        }
        guard declaredTotal <= UInt64(limits.totalSize) else { throw .tooLarge("the package", limit: limits.totalSize) }

        var total = 0
        func read(_ entry: PackageArchiveEntry) throws(FirmwarePackageError) -> [UInt8] {
            let bytes = try archive.contents(of: entry, limit: min(limits.fileSize, limits.totalSize - total))
            total += bytes.count
            return bytes
        }
        let isSUIT = manifest.files.contains { $0.kind == .suitEnvelope }
        var images: [Image] = []
        var envelope: Envelope?
        var caches: [Cache] = []
        var resources: [String: [UInt8]] = [:]
        for (file, entry) in listed {
            let bytes = try read(entry)
            if let size = file.size, size != bytes.count { throw .sizeMismatch(file.file, manifest: size, actual: bytes.count) }
            switch file.kind {
            case .b0Image:
                throw .unsupportedContent(file.file, "an image for nRF's immutable bootloader (version_B0); SMP does not update it")
            case .suitEnvelope:
                guard envelope == nil else { throw .unsupportedContent(file.file, "a second SUIT envelope; a package holds one") }
                envelope = Envelope(file: file.file, envelope: try Self.envelope(bytes, file: file.file))
            case .suitCache:
                caches.append(Cache(file: file.file, target: file.imageIndex ?? 0, bytes: bytes))
            case .other where isSUIT:
                resources[file.file] = bytes
            case .other:
                images.append(try Self.image(bytes, file: file))
            }
        }
        if isSUIT {
            guard images.isEmpty else { throw .unsupportedContent(images[0].file, "an MCUboot image in a SUIT package") }
            // Files the manifest does not list may still be what the envelope asks for.
            for entry in entries where entry.name != "manifest.json" && !manifest.files.contains(where: { $0.file == entry.name }) {
                guard entry.declaredSize <= UInt64(limits.fileSize), total + Int(entry.declaredSize) <= limits.totalSize else {
                    throw .tooLarge(entry.name, limit: min(limits.fileSize, limits.totalSize - total))
                }
                resources[entry.name] = try read(entry)
            }
        }
        try Self.checkImageNumbers(images)
        self.manifest = manifest
        self.images = images.sorted { ($0.index, $0.slot ?? -1) < ($1.index, $1.slot ?? -1) }
        self.envelope = envelope
        self.caches = caches
        self.resources = resources
    }

    /// A package of one SUIT envelope (a `.suit` file), with `resources` the device may ask for by name.
    public init(suitEnvelope bytes: [UInt8], file: String = "envelope.suit", resources: [String: [UInt8]] = [:]) throws(FirmwarePackageError) {
        manifest = nil
        images = []
        envelope = Envelope(file: file, envelope: try Self.envelope(bytes, file: file))
        caches = []
        self.resources = resources
    }

    /// A package of MCUboot images (as separate image files make one).
    public init(images: [Image]) throws(FirmwarePackageError) {
        try Self.checkImageNumbers(images)
        manifest = nil
        self.images = images
        envelope = nil
        caches = []
        resources = [:]
    }

    /// The bytes a SUIT device asks for by `uri`: `file://NAME` → the package's file NAME, `#NAME` →
    /// the envelope's integrated payload; nil when the package holds nothing by that name.
    public func resource(for uri: String) -> [UInt8]? {
        if uri.hasPrefix("file://") { return resources[String(uri.dropFirst("file://".count))] }
        if uri.hasPrefix("#") { return envelope?.envelope.integratedPayloads[uri] }
        return nil
    }

    private static func envelope(_ bytes: [UInt8], file: String) throws(FirmwarePackageError) -> SUITEnvelope {
        let envelope: SUITEnvelope
        do {
            envelope = try SUITEnvelope(bytes: bytes)
        } catch {
            throw .invalidEnvelope(file, error)
        }
        guard envelope.digestMatches else {
            let actual = envelope.digest.recomputed(over: envelope.manifestBytes) ?? []
            throw .invalidEnvelope(file, .digestMismatch(expected: envelope.digest.bytes, actual: actual))
        }
        return envelope
    }

    /// The entry's MCUboot image, parsed and hash-checked, with its image number and slot.
    private static func image(_ bytes: [UInt8], file: PackageManifest.File) throws(FirmwarePackageError) -> Image {
        let image: McuBootImage
        do {
            image = try McuBootImage(bytes: bytes)
            try image.verifyHash()
        } catch {
            throw .notAnMCUbootImage(file.file, error)
        }
        let index = file.imageIndex ?? 0
        var slot: Int?
        // Only a direct-XIP build's slot says which slot an image runs from: a swap build's `slot`
        // (where present) names the slot uploads go to. NCS writes either the image's own slot
        // (0 or 1) or the global one (2 × image + 0 or 1).
        if file.isDirectXIP, let given = file.slot {
            switch given {
            case 0, 1: slot = given
            case 2 * index, 2 * index + 1: slot = given - 2 * index
            default: throw .invalidSlot(file.file, slot: given, image: index)
            }
        }
        return Image(file: file.file, index: index, slot: slot, image: image)
    }

    /// One image per image number, or one per slot of a direct-XIP image number.
    private static func checkImageNumbers(_ images: [Image]) throws(FirmwarePackageError) {
        var byIndex: [Int: [Image]] = [:]
        for image in images { byIndex[image.index, default: []].append(image) }
        for (index, group) in byIndex.sorted(by: { $0.key < $1.key }) where group.count > 1 {
            let slots = group.compactMap(\.slot)
            guard group.count == 2, slots.count == 2, Set(slots).count == 2 else {
                throw .duplicateImage(index, group.map(\.file))
            }
        }
    }
}
