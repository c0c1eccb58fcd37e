import Logging
import McuBoot
import SMP
import Synchronization

/// The upgrade procedure: parameters, bootloader info, validate (plan from the image table),
/// upload, erase settings, test or mark permanent, reset and wait, re-plan, confirm.
///
/// Control steps resend through a lossy link until the configuration's step timeout; the reset
/// is sent once (it is not idempotent) and the device's image table tells whether it happened.
struct FirmwareUpgradeRunner: Sendable {
    let client: SMPClient
    var images: [FirmwareUpgradeImage]
    let configuration: FirmwareUpgradeConfiguration
    let control: UploadControl
    let logger: Logger
    let onState: @Sendable (FirmwareUpgradeState) -> Void
    let onProgress: @Sendable (Int, UploadProgress) -> Void

    /// How long a Zephyr device may keep answering after acknowledging a reset (`CONFIG_MCUMGR_GRP_OS_RESET_MS`).
    static let resetGrace = Duration.milliseconds(300)
    /// How long a device must keep answering with an unchanged image table before a lost reset
    /// request is sent again (well past any device's reset delay, so it cannot reach the new image).
    /// It is asked again as often as that happens until the reset timeout: on a lossy link each
    /// request may be lost (three in a row are, at 30 % loss, in one upgrade of 37).
    static let resetRequestLostAfter = Duration.seconds(3)
    /// How long to wait for an answer to the reset request, or to a slot table request while the
    /// device reboots: the table, not the reset's answer, tells whether the device rebooted, so a
    /// lost answer costs this much and no more (at most the session's own timeout).
    static let pollTimeout = Duration.seconds(1)
    /// How many resets may be spent freeing the other slot before the upload (a foreign test
    /// image needs two: one boots it for test, the next reverts it).
    static let maximumClearingResets = 3

    private var imageManager: ImageManager { ImageManager(client: client) }
    private var defaultManager: DefaultManager { DefaultManager(client: client) }
    private var clock: SMPClock { client.clock }

    /// Where the upgrade stands, for the error it may end with.
    struct Progress {
        var state = FirmwareUpgradeState.none
        var slots: [ImageSlot]?
    }

    func run() async throws(FirmwareUpgradeError) -> FirmwareUpgradeReport {
        try await guarded { progress in try await execute(&progress) }
    }

    /// Reads what the upgrade reads before acting and returns its first plan; changes nothing.
    func preview() async throws(FirmwareUpgradeError) -> FirmwareUpgradePreview {
        try await guarded { progress in
            let survey = try await self.survey(&progress)
            var runner = self
            runner.images = FirmwareUpgradeImage.choosingSlots(images, slots: survey.slots, bootloader: survey.bootloader)
            let plan = try runner.makePlan(slots: survey.slots, bootloader: survey.bootloader, refusedErases: [], progress: progress)
            return FirmwareUpgradePreview(slots: survey.slots, bootloader: survey.bootloader, plan: plan)
        }
    }

    /// Runs `body`, turning whatever it throws into a `FirmwareUpgradeError` with the state reached.
    private func guarded<T>(_ body: (inout Progress) async throws -> T) async throws(FirmwareUpgradeError) -> T {
        var progress = Progress()
        do {
            return try await body(&progress)
        } catch let error as FirmwareUpgradeError {
            throw error
        } catch let error as UploadError {
            throw FirmwareUpgradeError(state: progress.state, reason: .from(error), lastKnownSlots: progress.slots)
        } catch SMPError.cancelled {
            throw FirmwareUpgradeError(state: progress.state, reason: .cancelled, lastKnownSlots: progress.slots)
        } catch is CancellationError {
            throw FirmwareUpgradeError(state: progress.state, reason: .cancelled, lastKnownSlots: progress.slots)
        } catch let error as SMPError {
            throw FirmwareUpgradeError(state: progress.state, reason: .smp(error), lastKnownSlots: progress.slots)
        } catch {
            throw FirmwareUpgradeError(state: progress.state, reason: .unexpectedState("\(error)"), lastKnownSlots: progress.slots)
        }
    }

    private func enter(_ new: FirmwareUpgradeState, _ progress: inout Progress) throws {
        try Task.checkCancellation()
        progress.state = new
        onState(new)
    }

    private func fail(_ reason: FirmwareUpgradeError.Reason, _ progress: Progress) -> FirmwareUpgradeError {
        FirmwareUpgradeError(state: progress.state, reason: reason, lastKnownSlots: progress.slots)
    }

    /// What the upgrade reads before acting: packet sizes, the bootloader's mode, the image table.
    struct Survey {
        var depth: Int
        var packetSize: Int
        var bootloader: BootloaderMode?
        var slots: [ImageSlot]
    }

    /// Parameters, bootloader info and the image table, checked for missing image numbers and downgrades.
    private func survey(_ progress: inout Progress) async throws -> Survey {
        let step = configuration.stepOptions
        try enter(.requestMcuMgrParameters, &progress)
        let buffers = try await client.negotiateWithRetries(configuration: configuration, logger: logger)
        let depth = configuration.upload.depth(for: buffers)
        let packetSize = await client.packetLimit()
        logger.debug("upload packets of up to \(packetSize) bytes, \(depth) in flight")

        // The configured mode wins; otherwise the device's. Any error answer lets the upgrade go on (as a swap mode).
        var bootloader = configuration.bootloaderMode
        if configuration.requestsBootloaderInfo {
            try enter(.bootloaderInfo, &progress)
            let reported = try await bootloaderMode()
            bootloader = bootloader ?? reported
        }

        try enter(.validate, &progress)
        // Signatures, image numbers, sizes, dependencies, downgrade, security counter (FirmwareUpgradeFitCheck.swift).
        let slots = try await FirmwareUpgradeFitCheck(client: client, images: images, configuration: configuration)
            .validate(state: progress.state, options: step)
        progress.slots = slots
        return Survey(depth: depth, packetSize: packetSize, bootloader: bootloader, slots: slots)
    }

    private func execute(_ progress: inout Progress) async throws -> FirmwareUpgradeReport {
        let survey = try await self.survey(&progress)
        // One image per image number from here on: of a direct-XIP pair, the one for the free slot.
        var runner = self
        runner.images = FirmwareUpgradeImage.choosingSlots(images, slots: survey.slots, bootloader: survey.bootloader)
        return try await runner.execute(survey, &progress)
    }

    private func execute(_ survey: Survey, _ progress: inout Progress) async throws -> FirmwareUpgradeReport {
        let step = configuration.stepOptions
        let (depth, packetSize, bootloader) = (survey.depth, survey.packetSize, survey.bootloader)
        var slots = survey.slots

        var uploaded: [Int] = []
        var bytesUploaded = 0
        var uploadTime = Duration.zero
        var resets = 0
        var resetRequested = false
        var clearingResets = 0
        var refusedErases: Set<Int> = []
        var firstErase: SMPInstant?
        while true {
            let plan = try makePlan(slots: slots, bootloader: bootloader, refusedErases: refusedErases, progress: progress)
            if resetRequested {
                try checkAfterReset(slots: slots, progress: progress)
            }
            if plan.isDone { break }

            // Free the other slot first: a reset when it is held for a revert or an erase was refused.
            if let reason = plan.resetFirst {
                guard clearingResets < Self.maximumClearingResets else {
                    throw fail(.unexpectedState("the other slot is still held after \(clearingResets) resets (\(reason))"), progress)
                }
                clearingResets += 1
                logger.info("resetting before the upload: \(reason)")
                try enter(.reset, &progress)
                slots = try await resetAndWait(previous: slots, progress: progress)
                progress.slots = slots
                resets += 1
                try enter(.validate, &progress)
                continue
            }
            if !plan.erases.isEmpty {
                let eraseDeadline = firstErase ?? clock.now + configuration.stepTimeout
                firstErase = eraseDeadline
                let (refused, unanswered) = try await eraseForeignImages(plan.erases, options: step, deadline: eraseDeadline)
                if !refused.isEmpty || unanswered {
                    // An erase whose answer was lost may or may not have happened: the table says.
                    refusedErases.formUnion(refused)
                    slots = try await imageManager.list(options: step)
                    progress.slots = slots
                    continue
                }
            }

            if !plan.uploads.isEmpty {
                try enter(.upload, &progress)
                let started = clock.now
                for index in plan.uploads {
                    let image = images.first { $0.index == index }!
                    bytesUploaded += try await self.upload(image)
                    uploaded.append(index)
                }
                uploadTime += clock.now - started
            }
            if plan.needsReset && configuration.eraseAppSettings {
                try enter(.eraseAppSettings, &progress)
                _ = try await optional { try await BasicManager(client: client).eraseStorage() }
            }
            for index in plan.tests {
                try enter(.test, &progress)
                slots = try await imageManager.test(hash: hash(of: index), options: step)
                progress.slots = slots
            }
            for index in plan.permanents + plan.confirms {
                try enter(.confirm, &progress)
                slots = try await imageManager.confirm(hash: hash(of: index), options: step)
                progress.slots = slots
            }
            if plan.needsReset {
                guard !resetRequested else {
                    throw fail(.unexpectedState("the device still needs a reset after resetting"), progress)
                }
                try enter(.reset, &progress)
                slots = try await resetAndWait(previous: slots, progress: progress)
                progress.slots = slots
                resets += 1
                resetRequested = true
            } else {
                slots = try await imageManager.list(options: step)
                progress.slots = slots
                let again = try makePlan(slots: slots, bootloader: bootloader, refusedErases: [], progress: progress)
                guard again.isDone else {
                    throw fail(.unexpectedState("the device's image table did not change as planned"), progress)
                }
                break
            }
        }
        try enter(.success, &progress)
        return FirmwareUpgradeReport(
            uploadedImages: uploaded, bytesUploaded: bytesUploaded, uploadDuration: uploadTime,
            resets: resets, slots: slots, pipelineDepth: depth, packetSize: packetSize
        )
    }

    /// Asks for the bootloader's name and mode and returns the mode; any error answer the device
    /// gives lets the upgrade go on without one (planned as a swap mode).
    private func bootloaderMode() async throws(SMPError) -> BootloaderMode? {
        let info: BootloaderInfo
        do throws(SMPError) {
            info = try await defaultManager.bootloaderInfo(options: configuration.stepOptions)
        } catch .device(let error) {
            logger.debug("no bootloader info: \(error)")
            return nil
        } catch {
            throw error
        }
        logger.debug("bootloader \(info.name ?? "unknown"), mode \(info.mode.map(String.init) ?? "unknown")")
        return info.bootloaderMode
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

    private func upload(_ image: FirmwareUpgradeImage) async throws -> Int {
        let target = ImageUploadTarget(
            client: client, image: image.index, sha: image.image.fileSHA256, upgrade: configuration.rejectsDowngrade
        )
        let engine = UploadEngine(target: target, configuration: configuration.upload, control: control, logger: logger)
        let index = image.index
        let report = onProgress
        // Bytes the device already held (a resumed upload) were not uploaded by this run.
        let alreadyOnDevice = Mutex(0)
        _ = try await engine.upload(image.image.bytes) { progress in
            alreadyOnDevice.withLock { $0 = progress.bytesAlreadyOnDevice }
            report(index, progress)
        }
        return image.image.bytes.count - alreadyOnDevice.withLock { $0 }
    }

    // MARK: Reset

    /// Resets the device and returns its image table once it answers again after the reboot.
    ///
    /// The reset is sent once: if its answer is lost, the device may already be booting the new
    /// image, and a second reset would make MCUboot revert it. Only a device that keeps answering
    /// with an unchanged table for well past its reset delay is asked again, as often as that
    /// happens within the step timeout or the reset timeout, whichever is longer (a lossy link may
    /// lose each request); the device then has the reset timeout from the last request to answer
    /// with its new table.
    private func resetAndWait(previous: [ImageSlot], progress: Progress) async throws -> [ImageSlot] {
        let requestDeadline = clock.now + max(configuration.stepTimeout, configuration.resetTimeout)
        let poll = SMPRequestOptions(timeout: min(Self.pollTimeout, await client.configuration.timeout), retries: 0)
        var requests = 0
        var lastRequest = clock.now
        var lastUnchanged: SMPInstant?
        func requestReset() async throws {
            requests += 1
            lastRequest = clock.now
            do {
                try await defaultManager.reset(options: poll)
            } catch SMPError.device(let error) {
                throw SMPError.device(error)
            } catch {
                logger.debug("no answer to the reset request (\(error)); finding out whether the device rebooted")
            }
        }
        try await requestReset()
        try await clock.sleep(for: max(configuration.estimatedSwapTime, Self.resetGrace))
        var delay = Duration.milliseconds(100)
        while true {
            try Task.checkCancellation()
            do {
                try? await client.reconnect()
                let slots = try await imageManager.list(options: poll)
                // A reboot always changes the table (a swap, or a cleared pending flag); an
                // unchanged one means the device has not rebooted.
                if slots != previous { return slots }
                lastUnchanged = clock.now
                if clock.now - lastRequest >= Self.resetRequestLostAfter, clock.now < requestDeadline {
                    logger.info("the device answers without having rebooted; asking for a reset again (request \(requests + 1))")
                    try await requestReset()
                    try await clock.sleep(for: Self.resetGrace)
                }
            } catch SMPError.timeout {
            } catch SMPError.transport {
            }
            guard clock.now + delay < lastRequest + configuration.resetTimeout else {
                if let lastUnchanged, clock.now - lastUnchanged < configuration.resetTimeout / 2 {
                    throw fail(.unexpectedState(
                        "the device kept answering without rebooting after \(requests) reset requests"), progress)
                }
                throw fail(.deviceDidNotReturn, progress)
            }
            try await clock.sleep(for: delay)
            delay = min(delay * 3 / 2, .seconds(1))
        }
    }

    private func checkAfterReset(slots: [ImageSlot], progress: Progress) throws {
        guard configuration.mode != .uploadOnly else { return }
        // Confirm every image or none: all must run before any is confirmed.
        for image in images {
            guard case .running = FirmwareUpgradePlan.standing(of: image.image.hash, index: image.index, in: slots) else {
                throw fail(.imageNotActive(image: image.index), progress)
            }
        }
    }
}
