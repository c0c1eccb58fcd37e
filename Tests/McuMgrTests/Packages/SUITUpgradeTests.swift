import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// SUIT updates against the simulator's SUIT device, and against hostile ones.
@Suite("SUIT upgrades", .virtualTime)
struct SUITUpgradeTests {
    static let radio = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    static func device(_ hostility: SUITDeviceConfiguration.Hostility? = nil) async throws -> (SimulatedDevice, SMPClient) {
        var configuration = DeviceConfiguration()
        var suit = SUITDeviceConfiguration()
        suit.hostility = hostility
        configuration.suit = suit
        configuration.resetDelay = .milliseconds(20)
        configuration.bootDuration = .seconds(1)
        return try await UpgradeFixtures.device(configuration: configuration)
    }

    static func package(sequenceNumber: UInt64 = 2, resources: [(uri: String, bytes: [UInt8])] = [("file://radio.bin", radio)]) throws -> FirmwarePackage {
        var builder = SUITEnvelopeBuilder(sequenceNumber: sequenceNumber)
        builder.resources = resources
        return try FirmwarePackage(suitEnvelope: try builder.build(), file: "root.suit", resources: ["radio.bin": radio])
    }

    static func configuration() -> FirmwareUpgradeConfiguration {
        var configuration = UpgradeFixtures.configuration()
        configuration.stepTimeout = .seconds(10)
        return configuration
    }

    @Test("the device processes the envelope, asks for one image, gets it from the package, reboots and reports the new sequence number")
    func update() async throws {
        let (device, client) = try await Self.device()
        let package = try Self.package()
        let running = try FirmwareUpgradeManager(client: client).start(package: package, configuration: Self.configuration())
        var states: [FirmwareUpgradeState] = []
        var uploaded: Set<Int> = []
        for await event in running.events {
            switch event {
            case .stateChanged(let state): states.append(state)
            case .uploadProgress(let image, _): uploaded.insert(image)
            default: break
            }
        }
        let report: FirmwareUpgradeReport
        do {
            report = try await running.result()
        } catch {
            Issue.record("\(error); device log: \(await device.logMessages)")
            return
        }
        #expect(report.uploadedImages == [0, 1] && report.resets == 1 && report.bytesUploaded == package.envelope!.envelope.bytes.count + Self.radio.count)
        #expect(uploaded == [0, 1])
        #expect(states.first == .requestMcuMgrParameters && states.contains(.upload) && states.contains(.reset) && states.last == .success)
        #expect(await device.lastResetReason == "SUIT update")
        let root = try await SUITManager(client: client).state(of: .applicationRoot)
        #expect(root.sequenceNumber == 2 && root.digest == package.envelope!.envelope.digest.bytes)
        // The same envelope again: found installed, nothing is sent.
        let again = try await FirmwareUpgradeManager(client: client).upgrade(package: package, configuration: Self.configuration())
        #expect(again.uploadedImages.isEmpty && again.resets == 0)
    }

    @Test("the manager lists roles and states, and a deferred envelope waits for the process command")
    func manager() async throws {
        let (device, client) = try await Self.device()
        let suit = SUITManager(client: client)
        let manifests = try await suit.manifests()
        #expect(manifests.map(\.role.rawValue) == [0x20, 0x21, 0x22])
        #expect(manifests[0].state.sequenceNumber == 1 && manifests[0].state.versionText == "1.0.0" && !manifests[1].state.isInstalled)
        let envelope = try SUITEnvelopeBuilder(sequenceNumber: 5).build()
        try await suit.upload(envelope, as: .envelope(deferInstall: true))
        #expect(try await suit.poll() == SUITImageRequest(sessionID: nil, resourceID: nil))
        try await VirtualRuntime.currentClock.sleep(for: .seconds(1))
        #expect(await device.bootCount == 1, "a deferred envelope is not processed")
        try await suit.processEnvelope()
        await device.waitForBoot(2)
        await device.waitUntilOnline()
        #expect(try await suit.state(of: .applicationRoot).sequenceNumber == 5)
        try await suit.cleanup()
    }

    @Test("an envelope not newer than the installed manifest is refused: the update ends in an error")
    func notNewer() async throws {
        let (_, client) = try await Self.device()
        var configuration = Self.configuration()
        configuration.resetTimeout = .seconds(8)
        let error = await #expect(throws: FirmwareUpgradeError.self) {
            _ = try await FirmwareUpgradeManager(client: client).upgrade(package: try Self.package(sequenceNumber: 1, resources: []), configuration: configuration)
        }
        #expect("\(error!)".contains("did not finish processing") || "\(error!)".contains("refused"), "\(error!)")
    }

    @Test("hostile devices end in bounded time with a clear error", arguments: SUITDeviceConfiguration.Hostility.allCases)
    func hostile(_ hostility: SUITDeviceConfiguration.Hostility) async throws {
        let (_, client) = try await Self.device(hostility)
        let clock = VirtualRuntime.currentClock
        let start = clock.now
        var configuration = Self.configuration()
        configuration.resetTimeout = .seconds(30)
        let error = await #expect(throws: FirmwareUpgradeError.self) {
            _ = try await FirmwareUpgradeManager(client: client).upgrade(package: try Self.package(), configuration: configuration)
        }
        let message = "\(error!)"
        switch hostility {
        case .neverFinishes: #expect(message.contains("did not finish processing"), "\(message)")
        case .asksForUnknownResource: #expect(message.contains("file://missing.bin") && message.contains("does not hold"), "\(message)")
        case .asksEndlessly: #expect(message.contains("more than 64 images"), "\(message)")
        case .rewindsOffsets: #expect(message.contains("stalled"), "\(message)")
        }
        #expect(clock.now - start < .seconds(120), "took \(clock.now - start) of virtual time")
    }
}
