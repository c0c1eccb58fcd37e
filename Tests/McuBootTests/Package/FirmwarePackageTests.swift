import McuBoot
import SMPTestSupport
import Testing

/// DFU packages read from an archive: both NCS manifest layouts, and every malformed case a typed error.
@Suite("DFU packages")
struct FirmwarePackageTests {
    static func image(_ version: String, size: Int = 600, seed: UInt8 = 1) throws -> [UInt8] {
        try McuBootImageBuilder(payload: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }, version: McuBootVersion(string: version)!).build()
    }

    static func archive(_ files: [DFUPackageWriter.File], layout: DFUPackageWriter.Layout) -> InMemoryPackageArchive {
        let manifest = DFUPackageWriter.manifest(files, layout: layout)
        return InMemoryPackageArchive(files: [("manifest.json", Array(manifest.utf8))] + files.map { ($0.name, $0.bytes) })
    }

    static func failure(_ archive: InMemoryPackageArchive, limits: FirmwarePackageLimits = FirmwarePackageLimits()) -> FirmwarePackageError? {
        do {
            _ = try FirmwarePackage(archive: archive, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("an nRF5340 package (application and network core) reads alike in both manifest layouts", arguments: DFUPackageWriter.Layout.allCases)
    func twoImages(layout: DFUPackageWriter.Layout) throws {
        let app = try Self.image("1.2.3+4"), net = try Self.image("2.0.0", seed: 9)
        let package = try FirmwarePackage(archive: Self.archive([
            .init(name: "app_update.bin", bytes: app, image: 0, version: "1.2.3+4"),
            .init(name: "net_core_app_update.bin", bytes: net, image: 1, version: "2.0.0+0"),
        ], layout: layout))
        #expect(package.images.map(\.index) == [0, 1])
        #expect(package.images.map(\.file) == ["app_update.bin", "net_core_app_update.bin"])
        #expect(package.images[0].image.bytes == app && package.images[1].image.bytes == net)
        #expect(package.images.allSatisfy { $0.slot == nil })
        #expect(package.manifest?.formatVersion == (layout == .sysbuild ? 1 : 0))
        #expect(package.manifest?.files[1].loadAddress == 16_777_216 + 0x800)
        #expect(!package.isSUIT)
    }

    @Test("manifest quirks: image_index as string or number, a bare hex load address, unknown keys ignored")
    func manifestQuirks() throws {
        let json = """
            {"files": [{"file": "a.bin", "image_index": "1", "load_address": 0x10000, "slot": "1", "board": "b", "soc": "s",
              "type": "application", "version_MCUBOOT": "1.0.0", "modtime": 5, "size": 3, "future_key": {"x": [1, 2]}},
              {"file": "b.bin", "image": 0, "slot": 1, "size": "4"}], "extra": true, "name": "dfu_application"}
            """
        let manifest = try PackageManifest(json: Array(json.utf8))
        #expect(manifest.formatVersion == 0 && manifest.name == "dfu_application")
        #expect(manifest.files.map(\.imageIndex) == [1, 0])
        #expect(manifest.files[0].loadAddress == 0x10000 && manifest.files[0].slot == 1 && manifest.files[1].size == 4)
        #expect(manifest.files[0].mcubootVersion == "1.0.0" && !manifest.files[0].isDirectXIP)
    }

    @Test("malformed manifests are invalidManifest errors that say where")
    func malformedManifests() {
        let cases: [(String, String)] = [
            ("{", "not JSON"), ("{\"name\": \"x\"}", "files"), ("{\"files\": [{\"size\": 3}]}", "file"),
            ("{\"files\": [{\"file\": \"a\", \"image_index\": \"one\"}]}", "image_index"),
            ("{\"files\": [{\"file\": \"a\", \"image\": 99}]}", "image number 99"),
            ("{\"files\": [{\"file\": \"a\", \"size\": -1}]}", "negative"),
        ]
        for (json, mention) in cases {
            do {
                _ = try PackageManifest(json: Array(json.utf8))
                Issue.record("accepted \(json)")
            } catch {
                guard case .invalidManifest(let why) = error else { Issue.record("\(error)"); continue }
                #expect(why.contains(mention), "\(json): \(why)")
            }
        }
    }

    @Test("a missing file, a size mismatch, a non-image, two files for one image number are typed errors")
    func malformedPackages() throws {
        let app = try Self.image("1.0.0")
        var files: [DFUPackageWriter.File] = [.init(name: "app.bin", bytes: app)]
        // A file the manifest names is not in the zip.
        let missing = InMemoryPackageArchive(files: [("manifest.json", Array(DFUPackageWriter.manifest(files, layout: .legacy).utf8))])
        #expect(Self.failure(missing) == .missingFile("app.bin"))
        // The manifest gives another size.
        let manifest = DFUPackageWriter.manifest(files, layout: .sysbuild).replacingOccurrences(of: "\"size\": \(app.count)", with: "\"size\": 10")
        #expect(Self.failure(InMemoryPackageArchive(files: [("manifest.json", Array(manifest.utf8)), ("app.bin", app)]))
            == .sizeMismatch("app.bin", manifest: 10, actual: app.count))
        // Not an MCUboot image.
        files = [.init(name: "app.bin", bytes: [UInt8](repeating: 0x41, count: 100))]
        guard case .notAnMCUbootImage("app.bin", _)? = Self.failure(Self.archive(files, layout: .legacy)) else {
            Issue.record("a non-image was accepted")
            return
        }
        // An image whose hash does not match.
        var corrupted = app
        corrupted[0x30] ^= 0xff
        guard case .notAnMCUbootImage("app.bin", .hashMismatch)? = Self.failure(Self.archive([.init(name: "app.bin", bytes: corrupted)], layout: .legacy)) else {
            Issue.record("a corrupted image was accepted")
            return
        }
        // Two files for image 0.
        files = [.init(name: "a.bin", bytes: app), .init(name: "b.bin", bytes: try Self.image("1.0.1"))]
        #expect(Self.failure(Self.archive(files, layout: .sysbuild)) == .duplicateImage(0, ["a.bin", "b.bin"]))
        // No manifest at all.
        #expect(Self.failure(InMemoryPackageArchive(files: [("app.bin", app)])) == .missingManifest)
        // An image for nRF's immutable bootloader.
        let b0 = "{\"files\": [{\"file\": \"s0.bin\", \"version_B0\": \"1\", \"size\": 3}]}"
        guard case .unsupportedContent("s0.bin", _)? = Self.failure(InMemoryPackageArchive(files: [("manifest.json", Array(b0.utf8)), ("s0.bin", [1, 2, 3])])) else {
            Issue.record("a B0 image was accepted")
            return
        }
    }

    @Test("sizes past the limits are refused on the declared sizes, before anything is read")
    func limits() throws {
        let app = try Self.image("1.0.0", size: 4000)
        var limits = FirmwarePackageLimits()
        limits.fileSize = 1000
        #expect(Self.failure(Self.archive([.init(name: "app.bin", bytes: app)], layout: .legacy), limits: limits) == .tooLarge("app.bin", limit: 1000))
        limits = FirmwarePackageLimits()
        limits.totalSize = 5000
        let two = Self.archive([.init(name: "a.bin", bytes: app), .init(name: "b.bin", bytes: try Self.image("1.0.0", size: 4000, seed: 3), image: 1)], layout: .legacy)
        #expect(Self.failure(two, limits: limits) == .tooLarge("the package", limit: 5000))
        limits = FirmwarePackageLimits()
        limits.files = 1
        #expect(Self.failure(two, limits: limits) == .tooManyFiles(count: 2, limit: 1))
    }

    @Test("a direct-XIP package holds one image per slot of image 0, with the slot local or global")
    func directXIP() throws {
        let primary = try Self.image("1.1.0"), secondary = try Self.image("1.1.0", seed: 5)
        let package = try FirmwarePackage(archive: Self.archive([
            .init(name: "zephyr.signed.bin", bytes: primary, version: "1.1.0+0", directXIPSlot: 0),
            .init(name: "mcuboot_secondary_app.signed.bin", bytes: secondary, version: "1.1.0+0", directXIPSlot: 1),
        ], layout: .sysbuild))
        #expect(package.images.map(\.slot) == [0, 1])
        #expect(package.manifest?.files.allSatisfy(\.isDirectXIP) == true)
        // Image 1's slots given as global slot numbers (2 × image + slot).
        let net = try FirmwarePackage(archive: Self.archive([
            .init(name: "a.bin", bytes: primary, image: 1, directXIPSlot: 2), .init(name: "b.bin", bytes: secondary, image: 1, directXIPSlot: 3),
        ], layout: .legacy))
        #expect(net.images.map(\.slot) == [0, 1])
        #expect(Self.failure(Self.archive([.init(name: "a.bin", bytes: primary, image: 1, directXIPSlot: 7)], layout: .legacy))
            == .invalidSlot("a.bin", slot: 7, image: 1))
    }

    @Test("a SUIT package holds its envelope and the files the device may ask for")
    func suitPackage() throws {
        var builder = SUITEnvelopeBuilder(sequenceNumber: 3)
        builder.resources = [("file://radio.bin", [1, 2, 3])]
        let envelope = try builder.build()
        var radio = DFUPackageWriter.File(name: "radio.bin", bytes: [1, 2, 3], type: "bin", version: nil)
        radio.listed = false
        let files: [DFUPackageWriter.File] = [.init(name: "root.suit", bytes: envelope, type: "suit-envelope", version: nil), radio]
        let package = try FirmwarePackage(archive: Self.archive(files, layout: .sysbuild))
        #expect(package.isSUIT && package.envelope?.file == "root.suit")
        #expect(package.envelope?.envelope.sequenceNumber == 3)
        #expect(package.resource(for: "file://radio.bin") == [1, 2, 3])
        #expect(package.resource(for: "file://other.bin") == nil)
    }
}
