import Logging
import McuBoot
import SMP

/// The upgrade procedure: parameters, bootloader info, validate (plan from the image table),
/// upload, erase settings, test or mark permanent, reset and wait, re-plan, confirm.
struct FirmwareUpgradeRunner: Sendable {
    let client: SMPClient
    let images: [FirmwareUpgradeImage]
    let configuration: FirmwareUpgradeConfiguration
    let control: UploadControl
    let logger: Logger
    let onState: @Sendable (FirmwareUpgradeState) -> Void
    let onProgress: @Sendable (Int, UploadProgress) -> Void

    /// How long a Zephyr device may keep answering after acknowledging a reset (`CONFIG_MCUMGR_GRP_OS_RESET_MS`).
    static let resetGrace = Duration.milliseconds(300)
    /// How many times a reset is asked for when the device keeps answering without having swapped.
    static let maximumResetRequests = 3

    private var imageManager: ImageManager { ImageManager(client: client) }
    private var defaultManager: DefaultManager { DefaultManager(client: client) }

    func run() async throws(FirmwareUpgradeError) -> FirmwareUpgradeReport {
        var state = FirmwareUpgradeState.none
        do {
            return try await execute(state: &state)
        } catch let error as FirmwareUpgradeError {
            throw error
        } catch let error as UploadError {
            if case .cancelled = error { throw FirmwareUpgradeError(state: state, reason: .cancelled) }
            throw FirmwareUpgradeError(state: state, reason: .upload(error))
        } catch is CancellationError {
            throw FirmwareUpgradeError(state: state, reason: .cancelled)
        } catch let error as SMPError {
            if case .device(let deviceError) = error {
                throw FirmwareUpgradeError(state: state, reason: .device(deviceError))
            }
            throw FirmwareUpgradeError(state: state, reason: .smp(error))
        } catch {
            throw FirmwareUpgradeError(state: state, reason: .unexpectedState("\(error)"))
        }
    }

    private func enter(_ new: FirmwareUpgradeState, _ state: inout FirmwareUpgradeState) throws {
        try Task.checkCancellation()
        state = new
        onState(new)
    }

    private func execute(state: inout FirmwareUpgradeState) async throws -> FirmwareUpgradeReport {
        try enter(.requestMcuMgrParameters, &state)
        let upload = try await UploadConfiguration.negotiated(
            with: client, pipelineDepth: configuration.pipelineDepth, byteAlignment: configuration.byteAlignment,
            reassemblyBufferSize: configuration.reassemblyBufferSize, chunkTimeout: configuration.chunkTimeout
        )
        logger.debug("upload packets of up to \(upload.packetSize) bytes, \(upload.pipelineDepth) in flight")

        if configuration.requestsBootloaderInfo {
            try enter(.bootloaderInfo, &state)
            // Informational only: any answer the device gives, error or not, lets the upgrade go on.
            do {
                let info = try await defaultManager.bootloaderInfo()
                logger.debug("bootloader \(info.name ?? "unknown"), mode \(info.mode.map(String.init) ?? "unknown")")
            } catch SMPError.device(let error) {
                logger.debug("no bootloader info: \(error)")
            }
        }

        try enter(.validate, &state)
        // Signatures, image numbers, sizes, dependencies, downgrade, security counter (FirmwareUpgradeFitCheck.swift).
        var slots = try await FirmwareUpgradeFitCheck(client: client, images: images, configuration: configuration).validate(state: state)

        var uploaded: [Int] = []
        var bytesUploaded = 0
        var uploadTime = Duration.zero
        var resets = 0
        var resetRequested = false
        while true {
            let plan = FirmwareUpgradePlan(images: images, slots: slots, mode: configuration.mode)
            if resetRequested {
                try checkAfterReset(slots: slots, state: state)
            }
            if plan.isDone { break }

            if !plan.uploads.isEmpty {
                try enter(.upload, &state)
                let started = ContinuousClock.now
                for index in plan.uploads {
                    let image = images.first { $0.index == index }!
                    bytesUploaded += try await self.upload(image, configuration: upload)
                    uploaded.append(index)
                }
                uploadTime += ContinuousClock.now - started
            }
            if plan.needsReset && configuration.eraseAppSettings {
                try enter(.eraseAppSettings, &state)
                _ = try await optional { try await BasicManager(client: client).eraseStorage() }
            }
            for index in plan.tests {
                try enter(.test, &state)
                slots = try await imageManager.test(hash: hash(of: index))
            }
            for index in plan.permanents + plan.confirms {
                try enter(.confirm, &state)
                slots = try await imageManager.confirm(hash: hash(of: index))
            }
            if plan.needsReset {
                guard !resetRequested else {
                    throw FirmwareUpgradeError(state: state, reason: .unexpectedState("the device still needs a reset after resetting"))
                }
                try enter(.reset, &state)
                slots = try await resetAndWait(previous: slots)
                resets += 1
                resetRequested = true
            } else {
                slots = try await imageManager.list()
                let again = FirmwareUpgradePlan(images: images, slots: slots, mode: configuration.mode)
                guard again.isDone else {
                    throw FirmwareUpgradeError(state: state, reason: .unexpectedState("the device's image table did not change as planned"))
                }
                break
            }
        }
        try enter(.success, &state)
        return FirmwareUpgradeReport(
            uploadedImages: uploaded, bytesUploaded: bytesUploaded, uploadDuration: uploadTime,
            resets: resets, slots: slots, pipelineDepth: upload.pipelineDepth, packetSize: upload.packetSize
        )
    }

    private func hash(of index: Int) -> [UInt8] {
        images.first { $0.index == index }!.image.hash
    }

    /// Runs `body`, turning a device's "not supported" answer into `nil`; other errors are thrown.
    private func optional<T>(_ body: () async throws -> T) async throws -> T? {
        do {
            return try await body()
        } catch SMPError.device(.status(.notSupported, _)) {
            logger.debug("the device does not support this command")
            return nil
        }
    }

    // MARK: Upload

    private func upload(_ image: FirmwareUpgradeImage, configuration upload: UploadConfiguration) async throws -> Int {
        let target = ImageUploadTarget(
            client: client, image: image.index, sha: image.image.fileSHA256, upgrade: configuration.rejectsDowngrade
        )
        let engine = UploadEngine(target: target, configuration: upload, control: control, logger: logger)
        let index = image.index
        let report = onProgress
        _ = try await engine.upload(image.image.bytes) { report(index, $0) }
        return image.image.bytes.count
    }

    // MARK: Reset

    /// Resets the device and returns its image table once it answers again after the reboot.
    private func resetAndWait(previous: [ImageSlot]) async throws -> [ImageSlot] {
        let deadline = ContinuousClock.now + configuration.resetTimeout
        var requests = 0
        func requestReset() async throws {
            requests += 1
            do {
                try await defaultManager.reset()
            } catch let error as SMPError {
                // The answer may be lost while the device goes down; only a refusal is an error.
                if case .device = error { throw error }
                logger.debug("no answer to the reset request (\(error)); the device may already be rebooting")
            }
        }
        try await requestReset()
        try await Task.sleep(for: max(configuration.estimatedSwapTime, Self.resetGrace))
        var delay = Duration.milliseconds(100)
        while true {
            try Task.checkCancellation()
            do {
                try? await client.transport.connect()
                let slots = try await imageManager.list(timeout: .seconds(1), retries: 0)
                // A reboot always changes the table (a swap, or a cleared pending flag); an
                // unchanged one means the device has not rebooted yet.
                if slots != previous { return slots }
                if requests < Self.maximumResetRequests, ContinuousClock.now + delay * 4 < deadline {
                    logger.info("the device answers without having rebooted; asking for a reset again")
                    try await requestReset()
                    try await Task.sleep(for: Self.resetGrace)
                }
            } catch SMPError.timeout {
            } catch SMPError.transport {
            }
            guard ContinuousClock.now + delay < deadline else {
                throw FirmwareUpgradeError(state: .reset, reason: .deviceDidNotReturn)
            }
            try await Task.sleep(for: delay)
            delay = min(delay * 3 / 2, .seconds(2))
        }
    }

    private func checkAfterReset(slots: [ImageSlot], state: FirmwareUpgradeState) throws {
        guard configuration.mode != .uploadOnly else { return }
        // Confirm every image or none: all must run before any is confirmed.
        for image in images {
            guard case .running = FirmwareUpgradePlan.standing(of: image.image.hash, index: image.index, in: slots) else {
                throw FirmwareUpgradeError(state: state, reason: .imageNotActive(image: image.index))
            }
        }
    }
}
