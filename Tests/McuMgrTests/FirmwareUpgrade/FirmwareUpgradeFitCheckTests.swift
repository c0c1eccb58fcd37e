import CBOR
import Crypto
import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Synchronization
import Testing

/// The validate step's checks: signatures against the configured keys, and whether the images fit
/// the device (slot size, image number, dependencies, downgrade, security counter), each refused
/// before the first chunk.
@Suite("Firmware upgrade checks before the first chunk", .virtualTime)
struct FirmwareUpgradeFitCheckTests {
    /// An ECDSA P-256 signed image made by the builder (byte-identical to imgtool's, up to the signature).
    static func signedImage(key: P256.Signing.PrivateKey, version: String = "2.0.0") throws -> McuBootImage {
        var builder = McuBootImageBuilder(payload: UpgradeFixtures.payload(count: 8 * 1024, seed: 3), version: McuBootVersion(string: version)!)
        builder.headerSize = 0x200
        builder.signingKey = McuBootSigningKey(key)
        return try builder.buildImage()
    }

    /// Runs the upgrade and returns the error it fails with (recording an issue if it succeeds).
    static func failure(
        _ images: [FirmwareUpgradeImage], configuration: FirmwareUpgradeConfiguration, client: SMPClient
    ) async -> FirmwareUpgradeError? {
        do {
            _ = try await FirmwareUpgradeManager(client: client).upgrade(images: images, configuration: configuration)
            Issue.record("the upgrade was accepted")
            return nil
        } catch {
            return error
        }
    }

    /// The fit problem `error` reports, if it is one.
    static func fit(_ error: FirmwareUpgradeError?) -> FirmwareUpgradeFitProblem? {
        if case .doesNotFit(let problem)? = error?.reason { return problem }
        return nil
    }

    @Test("the right key passes and the upgrade completes; any of several keys may match")
    func rightKey() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let key = P256.Signing.PrivateKey()
        let image = try Self.signedImage(key: key)
        var configuration = UpgradeFixtures.configuration(mode: .uploadOnly)
        configuration.signatureKeys = [McuBootPublicKey(Curve25519.Signing.PrivateKey().publicKey), McuBootPublicKey(key.publicKey)]
        let report = try await FirmwareUpgradeManager(client: client).upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: configuration)
        #expect(report.uploadedImages == [0])
        #expect(await !UpgradeFixtures.uploadRequests(device).isEmpty)
    }

    @Test("a wrong key is refused in validate, naming the image's key hash, with no upload request")
    func wrongKey() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try Self.signedImage(key: P256.Signing.PrivateKey())
        let other = McuBootPublicKey(P256.Signing.PrivateKey().publicKey)
        var configuration = UpgradeFixtures.configuration()
        configuration.signatureKeys = [other]
        let error = await Self.failure([FirmwareUpgradeImage(image: image)], configuration: configuration, client: client)
        let named = try #require(image.signingKeyHash)
        guard case .signatureRejected(0, .keyMismatch(let imageKeyHash, let keyHashes))? = error?.reason else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(imageKeyHash == named)
        #expect(keyHashes == [other.keyHash()])
        #expect(error?.state == .validate)
        #expect(await UpgradeFixtures.uploadRequests(device).isEmpty)
        // The library check alone, without a device.
        #expect(throws: FirmwareUpgradeError.self) {
            try FirmwareUpgradeFitCheck.verifySignatures(of: [FirmwareUpgradeImage(image: image)], keys: [other])
        }
        try FirmwareUpgradeFitCheck.verifySignatures(of: [FirmwareUpgradeImage(image: image)], keys: [])
    }

    @Test("an unsigned image with keys configured is refused as missingSignature")
    func unsignedWithKeys() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        var configuration = UpgradeFixtures.configuration()
        configuration.signatureKeys = [McuBootPublicKey(P256.Signing.PrivateKey().publicKey)]
        let error = await Self.failure([FirmwareUpgradeImage(image: try UpgradeFixtures.image())], configuration: configuration, client: client)
        guard case .signatureRejected(0, .missingSignature)? = error?.reason else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(await UpgradeFixtures.uploadRequests(device).isEmpty)
    }

    @Test("an image larger than the device's slot is refused with both sizes")
    func tooLarge() async throws {
        var settings = DeviceConfiguration()
        settings.slotSize = 0x8000
        let (device, client) = try await UpgradeFixtures.device(configuration: settings)
        let image = try UpgradeFixtures.image(size: 0x9000)
        let error = await Self.failure([FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(), client: client)
        #expect(Self.fit(error) == .imageTooLarge(image: 0, size: image.bytes.count, limit: 0x8000))
        #expect(error?.description.contains("larger than the 32768 bytes") == true)
        #expect(await UpgradeFixtures.uploadRequests(device).isEmpty)
    }

    @Test("an image number the device lacks, and an image built for another image number, are refused")
    func imageNumbers() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        let missing = await Self.failure([FirmwareUpgradeImage(index: 5, image: image)], configuration: UpgradeFixtures.configuration(), client: client)
        #expect(Self.fit(missing) == .noSuchImage(image: 5, available: [0, 1]))

        var builder = McuBootImageBuilder(payload: UpgradeFixtures.payload(count: 4096, seed: 9), version: McuBootVersion(major: 2))
        builder.dependencies = [McuBootImageDependency(imageID: 1, minimumVersion: McuBootVersion(major: 1))]
        let netCore = try builder.buildImage()
        // Built for image 0 (it depends on image 1), sent as image 1.
        let itself = await Self.failure([FirmwareUpgradeImage(index: 1, image: netCore)], configuration: UpgradeFixtures.configuration(), client: client)
        #expect(Self.fit(itself) == .dependsOnItself(image: 1, minimumVersion: McuBootVersion(major: 1)))
        #expect(itself?.description.contains("built for another image number") == true)

        builder.dependencies = [McuBootImageDependency(imageID: 4, minimumVersion: McuBootVersion(major: 1))]
        let other = await Self.failure([FirmwareUpgradeImage(image: try builder.buildImage())], configuration: UpgradeFixtures.configuration(), client: client)
        #expect(Self.fit(other) == .missingDependency(image: 0, dependsOn: 4))
        #expect(await UpgradeFixtures.uploadRequests(device).isEmpty)
    }

    @Test("a dependency on a newer version of another image: refused alone, accepted with that image")
    func dependencies() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        var builder = McuBootImageBuilder(payload: UpgradeFixtures.payload(count: 4096, seed: 9), version: McuBootVersion(major: 2))
        builder.dependencies = [McuBootImageDependency(imageID: 1, minimumVersion: McuBootVersion(major: 1, minor: 5))]
        let app = try builder.buildImage()
        let alone = await Self.failure([FirmwareUpgradeImage(image: app)], configuration: UpgradeFixtures.configuration(), client: client)
        #expect(Self.fit(alone) == (.unsatisfiedDependency(
            image: 0, dependsOn: 1, minimumVersion: McuBootVersion(major: 1, minor: 5), available: "1.0.0")))
        #expect(await UpgradeFixtures.uploadRequests(device).isEmpty)

        let net = try UpgradeFixtures.image(size: 4096, version: "1.5.0", seed: 21)
        let report = try await FirmwareUpgradeManager(client: client).upgrade(
            images: [FirmwareUpgradeImage(image: app), FirmwareUpgradeImage(index: 1, image: net)],
            configuration: UpgradeFixtures.configuration(mode: .uploadOnly))
        #expect(report.uploadedImages.sorted() == [0, 1])
    }

    @Test("a security counter lower than the running image's is refused when the device reports it")
    func securityCounter() async throws {
        let runningHash = Array(repeating: UInt8(0xab), count: 32)
        let uploads = Mutex(0)
        let script: @Sendable (SMPHeader, CBORValue) -> CBORValue = { header, _ in
            switch (header.group, header.command) {
            case (0, 6): return .fields([("buf_size", .unsigned(2048)), ("buf_count", .unsigned(4))])
            case (1, 0):
                return .fields([("images", .array([.fields([
                    ("slot", .unsigned(0)), ("version", .text("1.0.0")), ("hash", .bytes(runningHash)),
                    ("bootable", .bool(true)), ("confirmed", .bool(true)), ("active", .bool(true)),
                    ("security_counter", .unsigned(10)),
                ])]))])
            case (1, 1):
                uploads.withLock { $0 += 1 }
                return .fields([("rc", .unsigned(8))])
            default: return .fields([("rc", .unsigned(8))])
            }
        }
        var configuration = UpgradeFixtures.configuration()
        configuration.requestsBootloaderInfo = false
        try await ScriptedDevice.with(script: script) { client in
            let facts = try await FirmwareUpgradeFitCheck(client: client, images: [], configuration: configuration).readDevice()
            #expect(facts.securityCounters == [0: 10])
            #expect(facts.slotInfo == nil, "slot info not supported: skipped")
            #expect(facts.slots.map(\.hash) == [runningHash])

            for (counter, expected) in [(UInt32?.some(5), UInt32?.some(5)), (nil, nil)] {
                var builder = McuBootImageBuilder(payload: UpgradeFixtures.payload(count: 2048, seed: 5), version: McuBootVersion(major: 3))
                builder.securityCounter = counter
                let image = try builder.buildImage()
                let error = await Self.failure([FirmwareUpgradeImage(image: image)], configuration: configuration, client: client)
                #expect(Self.fit(error) == .securityCounterTooLow(image: 0, counter: expected, running: 10))
            }
        }
        #expect(uploads.withLock { $0 } == 0)
        // Equal or higher counters fit.
        var builder = McuBootImageBuilder(payload: [1, 2, 3], version: McuBootVersion(major: 3))
        builder.securityCounter = 10
        let device = FirmwareUpgradeFitCheck.Device(
            slots: [ImageSlot(slot: 0, version: "1.0.0", hash: runningHash, active: true)], securityCounters: [0: 10])
        #expect(FirmwareUpgradeFitCheck.problem(images: [FirmwareUpgradeImage(image: try builder.buildImage())], device: device, rejectsDowngrade: true) == nil)
    }

    @Test("slot info: the secondary slot and max_image_size bound the image; without slot info nothing is refused for size")
    func sizeLimits() throws {
        let image = FirmwareUpgradeImage(image: try UpgradeFixtures.image(size: 5000))
        let slots = [ImageSlot(slot: 0, version: "1.0.0", hash: [], active: true)]
        func problem(_ info: [ImageSlotInfo]?) -> FirmwareUpgradeFitProblem? {
            FirmwareUpgradeFitCheck.problem(images: [image], device: .init(slots: slots, slotInfo: info), rejectsDowngrade: false)
        }
        let size = image.image.bytes.count
        #expect(problem(nil) == nil)
        #expect(problem([ImageSlotInfo(image: 0, slots: [.init(slot: 0, size: 1 << 20), .init(slot: 1, size: 4096)])])
            == .imageTooLarge(image: 0, size: size, limit: 4096))
        #expect(problem([ImageSlotInfo(image: 0, slots: [.init(slot: 1, size: 1 << 20)], maxImageSize: 5000)])
            == .imageTooLarge(image: 0, size: size, limit: 5000))
        #expect(problem([ImageSlotInfo(image: 0, slots: [.init(slot: 1, size: size)])]) == nil)
    }
}
