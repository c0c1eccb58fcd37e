import Logging
import SMP

/// The steps that free the other slot before an upload, and the busy retry of image requests.
extension FirmwareUpgradeRunner {
    /// How many resets may be spent freeing the other slot (a foreign test image needs two: one
    /// boots it for test, the next reverts it).
    static let maximumClearingResets = 3
    /// How many busy answers in a row an image request (list, test, confirm, erase) survives.
    static let maximumBusyRetries = 8

    /// Runs `body`, asking again with back-off (50 ms doubling to 2 s) while the device answers
    /// `MGMT_ERR_EBUSY` (rc 10), as a device busy writing external flash does.
    func retryingBusy<T>(
        _ what: String, clock: SMPClock = .continuous, _ body: () async throws -> T
    ) async throws -> T {
        var delay = Duration.milliseconds(50)
        var attempts = 0
        while true {
            do {
                return try await body()
            } catch SMPError.device(let error) where error.status == .busy && attempts < Self.maximumBusyRetries {
                attempts += 1
                logger.info("the device is busy (\(what)); asking again in \(delay)")
                try await clock.sleep(for: delay)
                delay = min(delay * 2, .seconds(2))
            }
        }
    }

    /// Reads the image table, riding out busy answers.
    func listImages() async throws -> [ImageSlot] {
        let manager = ImageManager(client: client)
        return try await retryingBusy("image list") { try await manager.list() }
    }

    /// Erases each slot holding a foreign image marked for the next boot; returns the images whose
    /// erase the device refused (`NO_FREE_SLOT`, its SMP v1 form `EBADSTATE`, or no erase command):
    /// those need a reset first.
    func eraseForeignImages(_ slots: [FirmwareUpgradePlan.SlotAddress]) async throws -> Set<Int> {
        let manager = ImageManager(client: client)
        var refused: Set<Int> = []
        for address in slots {
            do {
                try await retryingBusy("image erase") { try await manager.erase(slot: address.absolute) }
                logger.info("erased image \(address.image) slot \(address.slot): another image was marked for the next boot")
            } catch SMPError.device(let error) where Self.isRefusedErase(error) {
                logger.info("the device refused to erase image \(address.image) slot \(address.slot) (\(error)); resetting first")
                refused.insert(address.image)
            }
        }
        return refused
    }

    /// Whether an erase answer means the slot is held (or cannot be erased), not a failure.
    static func isRefusedErase(_ error: SMPDeviceError) -> Bool {
        error == .image(.noFreeSlot) || error.status == .badState || error.status == .notSupported
    }

    /// Resets the device so that MCUboot releases the other slot (a revert, or booting the image
    /// marked for the next boot), then returns the new image table; bounded by ``maximumClearingResets``.
    func clearingReset(
        reason: String, count: inout Int, previous: [ImageSlot], state: inout FirmwareUpgradeState
    ) async throws -> [ImageSlot] {
        guard count < Self.maximumClearingResets else {
            throw FirmwareUpgradeError(state: state, reason: .unexpectedState(
                "the other slot is still held after \(count) resets (\(reason))"))
        }
        count += 1
        logger.info("resetting before the upload: \(reason)")
        try enter(.reset, &state)
        let slots = try await resetAndWait(previous: previous)
        try enter(.validate, &state)
        return slots
    }
}
