import Logging
import McuBoot
import Hex
import SMP

/// A SUIT update (nRF54H20): upload the envelope (and cache images), let the device process it,
/// serve the images it asks for from the package, wait for its reboot, and check that a manifest
/// role now reports the envelope's digest.
///
/// States as an MCUboot upgrade reports them: parameters, validate (is the envelope installed
/// already?), upload (envelope, caches, requested images), reset (processing and the reboot),
/// validate, success. Every wait is bounded: the device has the reset timeout to finish processing,
/// may ask for at most ``maximumResourceRequests`` images, and an image the package lacks ends the
/// update at once.
struct SUITUpgradeRunner: Sendable {
    let client: SMPClient
    let package: FirmwarePackage
    let envelope: SUITEnvelope
    let configuration: FirmwareUpgradeConfiguration
    let control: UploadControl
    let logger: Logger
    let onState: @Sendable (FirmwareUpgradeState) -> Void
    let onProgress: @Sendable (Int, UploadProgress) -> Void

    /// How often the device is asked whether it wants an image (Nordic's clients: 150 ms).
    static let pollInterval = Duration.milliseconds(150)
    /// How long empty poll answers may go on before the manifest state is read to see whether the
    /// device finished without a reboot (Nordic's clients stop after 5 s).
    static let quietWindow = Duration.seconds(5)
    /// The most images one update serves: more means a device that asks forever.
    static let maximumResourceRequests = 64
    /// How long one poll or state read waits, so that a rebooting device is noticed quickly.
    static let pollTimeout = Duration.seconds(1)

    private var suit: SUITManager { SUITManager(client: client, logger: logger) }
    private var clock: SMPClock { client.clock }

    /// Where the update stands, shared by the steps.
    private final class Progress: @unchecked Sendable {
        var state = FirmwareUpgradeState.none
        var uploaded: [Int] = []
        var bytes = 0
        var uploadTime = Duration.zero
        var resets = 0
    }

    func run() async throws(FirmwareUpgradeError) -> FirmwareUpgradeReport {
        let progress = Progress()
        do {
            return try await execute(progress)
        } catch {
            throw Self.upgradeError(error, state: progress.state)
        }
    }

    /// What the upgrade reports for an error a step threw.
    static func upgradeError(_ error: any Error, state: FirmwareUpgradeState) -> FirmwareUpgradeError {
        switch error {
        case let error as FirmwareUpgradeError: return error
        case let error as UploadError: return FirmwareUpgradeError(state: state, reason: .from(error))
        case SMPError.cancelled, is CancellationError: return FirmwareUpgradeError(state: state, reason: .cancelled)
        case let error as SMPError: return FirmwareUpgradeError(state: state, reason: .smp(error))
        default: return FirmwareUpgradeError(state: state, reason: .unexpectedState("\(error)"))
        }
    }

    private func enter(_ state: FirmwareUpgradeState, _ progress: Progress) throws {
        try Task.checkCancellation()
        progress.state = state
        onState(state)
    }

    private func fail(_ reason: FirmwareUpgradeError.Reason, _ progress: Progress) -> FirmwareUpgradeError {
        FirmwareUpgradeError(state: progress.state, reason: reason)
    }

    private func execute(_ progress: Progress) async throws -> FirmwareUpgradeReport {
        try enter(.requestMcuMgrParameters, progress)
        let buffers = try await client.negotiateWithRetries(configuration: configuration, logger: logger)
        let depth = configuration.upload.depth(for: buffers)
        let packetSize = await client.packetLimit()

        try enter(.validate, progress)
        if try await installedRole(options: configuration.stepOptions) != nil {
            logger.info("the device already runs this envelope (sequence number \(envelope.sequenceNumber))")
            try enter(.success, progress)
            return report(progress, depth: depth, packetSize: packetSize)
        }

        try enter(.upload, progress)
        let deferInstall = !package.caches.isEmpty
        try await upload(envelope.bytes, as: .envelope(deferInstall: deferInstall), number: 0, progress)
        for (offset, cache) in package.caches.enumerated() {
            try await upload(cache.bytes, as: .cache(target: cache.target), number: offset + 1, progress)
        }
        if deferInstall {
            try await suit.processEnvelope(options: SMPRequestOptions(timeout: configuration.stepTimeout, retries: 0))
        }

        try await process(progress, firstNumber: package.caches.count + 1)

        try enter(.validate, progress)
        var installed = try await installedRole(options: configuration.stepOptions) != nil
        if !installed, try await !reportsRoles() {
            installed = true
        }
        guard installed else {
            throw fail(.unexpectedState(
                "the device finished processing, but no manifest role reports the envelope's digest \(envelope.digest.bytes.hexPrefix); it refused the update"),
                progress)
        }
        try enter(.success, progress)
        return report(progress, depth: depth, packetSize: packetSize)
    }

    private func report(_ progress: Progress, depth: Int, packetSize: Int) -> FirmwareUpgradeReport {
        FirmwareUpgradeReport(
            uploadedImages: progress.uploaded, bytesUploaded: progress.bytes, uploadDuration: progress.uploadTime,
            resets: progress.resets, slots: [], pipelineDepth: depth, packetSize: packetSize)
    }

    private func upload(_ bytes: [UInt8], as kind: SUITUploadTarget.Kind, number: Int, _ progress: Progress) async throws {
        let started = clock.now
        let report = onProgress
        try await suit.upload(bytes, as: kind, configuration: configuration.upload, control: control) { report(number, $0) }
        progress.uploadTime += clock.now - started
        progress.uploaded.append(number)
        progress.bytes += bytes.count
    }

    /// Polls while the device processes the envelope, serving what it asks for, until it reboots
    /// (it stops answering) or goes quiet; bounded by the reset timeout and the request count.
    private func process(_ progress: Progress, firstNumber: Int) async throws {
        let deadline = clock.now + configuration.resetTimeout
        let options = SMPRequestOptions(timeout: min(Self.pollTimeout, await client.configuration.timeout), retries: 0)
        var served = 0
        var quietSince = clock.now
        while true {
            try Task.checkCancellation()
            guard clock.now < deadline else {
                throw fail(.unexpectedState(
                    "the device did not finish processing the envelope within \(configuration.resetTimeout) (it kept answering without asking for an image or rebooting)"),
                    progress)
            }
            let request: SUITImageRequest
            switch try await pollOnce(options: options) {
            case .answer(let answer):
                request = answer
            case .gone:
                // The device stopped answering: it rebooted to install the update.
                try enter(.reset, progress)
                progress.resets += 1
                try await waitForReturn(deadline: clock.now + configuration.resetTimeout, progress)
                return
            case .notSupported:
                // Nordic's clients read this as the device having moved on (no polling after processing).
                logger.info("the device does not answer polls; reading its manifests")
                return
            }
            if request.isRequest, let uri = request.resourceID, let session = request.sessionID {
                served += 1
                guard served <= Self.maximumResourceRequests else {
                    throw fail(.unexpectedState("the device asked for more than \(Self.maximumResourceRequests) images; stopping"), progress)
                }
                guard let bytes = package.resource(for: uri) else {
                    throw fail(.unexpectedState("the device asks for \(uri), which the package does not hold"), progress)
                }
                logger.info("the device asks for \(uri) (session \(session)); sending \(bytes.count) bytes")
                try enter(.upload, progress)
                try await upload(bytes, as: .resource(sessionID: session), number: firstNumber + served - 1, progress)
                quietSince = clock.now
                continue
            }
            if clock.now - quietSince >= Self.quietWindow {
                // Quiet for a while without rebooting: installed already, or waiting for nothing.
                if try await installedRole(options: options) != nil { return }
                quietSince = clock.now
            }
            try await clock.sleep(for: Self.pollInterval)
        }
    }

    /// What one poll found.
    private enum PollOutcome {
        case answer(SUITImageRequest)
        /// No answer, or the link dropped: the device is rebooting.
        case gone
        /// The device does not answer polls (`MGMT_ERR_ENOTSUP`).
        case notSupported
    }

    private func pollOnce(options: SMPRequestOptions) async throws -> PollOutcome {
        do {
            return .answer(try await suit.poll(options: options))
        } catch {
            switch error {
            case .timeout, .transport: return .gone
            case .device(let deviceError) where deviceError.status == .notSupported: return .notSupported
            default: throw error
            }
        }
    }

    /// Waits until the device answers again after its reboot (a manifest list), bounded by `deadline`.
    private func waitForReturn(deadline: SMPInstant, _ progress: Progress) async throws {
        try await clock.sleep(for: max(configuration.estimatedSwapTime, .milliseconds(300)))
        var delay = Duration.milliseconds(100)
        let options = SMPRequestOptions(timeout: min(Self.pollTimeout, await client.configuration.timeout), retries: 0)
        while true {
            try Task.checkCancellation()
            try? await client.reconnect()
            switch try await rolesOnce(options: options) {
            case .answer, .notSupported: return
            case .gone: break
            }
            guard clock.now + delay < deadline else { throw fail(.deviceDidNotReturn, progress) }
            try await clock.sleep(for: delay)
            delay = min(delay * 3 / 2, .seconds(1))
        }
    }

    private func rolesOnce(options: SMPRequestOptions) async throws -> PollOutcome {
        do {
            _ = try await suit.roles(options: options)
            return .answer(SUITImageRequest(sessionID: nil, resourceID: nil))
        } catch {
            switch error {
            case .timeout, .transport: return .gone
            case .device: return .notSupported
            default: throw error
            }
        }
    }

    /// The role whose installed manifest has the envelope's digest, or nil (nil too when the device
    /// does not report manifests).
    private func installedRole(options: SMPRequestOptions) async throws -> SUITManifestRole? {
        guard let roles = try await optionalRoles(options: options) else { return nil }
        for role in roles {
            guard let state = try? await suit.state(of: role, options: options) else { continue }
            if state.digest == envelope.digest.bytes { return role }
        }
        return nil
    }

    /// Whether the device answers the manifest list (if not, the update cannot be checked and is taken as done).
    private func reportsRoles() async throws -> Bool {
        try await optionalRoles(options: configuration.stepOptions) != nil
    }

    /// The roles, or nil when the device answers with an error.
    private func optionalRoles(options: SMPRequestOptions) async throws(SMPError) -> [SUITManifestRole]? {
        do {
            return try await suit.roles(options: options)
        } catch {
            if case .device = error { return nil }
            throw error
        }
    }
}

extension Array where Element == UInt8 {
    /// The first eight bytes in hex and an ellipsis, for messages.
    var hexPrefix: String { prefix(8).hexString + (count > 8 ? "…" : "") }
}
