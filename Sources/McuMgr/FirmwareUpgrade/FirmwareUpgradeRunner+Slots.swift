import Logging
import SMP

/// The steps that free the other slot before an upload: erase, or a reset first.
///
/// Busy answers (`MGMT_ERR_EBUSY`, rc 10, as from a device writing external flash) to these and
/// to every other control step are asked again with back-off by the session, within the step's
/// deadline (`stepOptions`); upload chunks ride them out in the upload engine.
extension FirmwareUpgradeRunner {
    /// Plans from `slots`, reporting a refusal with the upgrade's state and slot table.
    func makePlan(
        slots: [ImageSlot], bootloader: BootloaderMode?, refusedErases: Set<Int>, progress: Progress
    ) throws(FirmwareUpgradeError) -> FirmwareUpgradePlan {
        do {
            return try FirmwareUpgradePlan(
                images: images, slots: slots, mode: configuration.mode, bootloader: bootloader, refusedErases: refusedErases)
        } catch {
            throw FirmwareUpgradeError(state: progress.state, reason: error.reason, lastKnownSlots: progress.slots)
        }
    }

    /// Erases each slot holding a foreign image marked for the next boot; returns the images whose
    /// erase the device refused (`NO_FREE_SLOT`, its SMP v1 form `EBADSTATE`, or no erase command):
    /// those need a reset first; and whether an erase went unanswered (the caller reads the slot
    /// table to learn whether it happened, and plans again), which is allowed until `deadline`.
    func eraseForeignImages(
        _ slots: [FirmwareUpgradePlan.SlotAddress], options: SMPRequestOptions, deadline: SMPInstant
    ) async throws -> (refused: Set<Int>, unanswered: Bool) {
        var refused: Set<Int> = []
        for address in slots {
            // Not resent by the session after a lost answer (erase is not idempotent); busy answers are asked again.
            let outcome: Result<ImageEraseRequest.Response, SMPError>
            do throws(SMPError) {
                outcome = .success(try await client.send(ImageEraseRequest(slot: address.absolute), options: options))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success:
                logger.info("erased image \(address.image) slot \(address.slot): another image was marked for the next boot")
            case .failure(.device(let error)) where Self.isRefusedErase(error):
                logger.info("the device refused to erase image \(address.image) slot \(address.slot) (\(error)); resetting first")
                refused.insert(address.image)
            case .failure(.timeout) where client.clock.now < deadline:
                logger.info("no answer to the erase of image \(address.image) slot \(address.slot); reading the slot table to learn whether it happened")
                return (refused, true)
            case .failure(let error):
                throw error
            }
        }
        return (refused, false)
    }

    /// Whether an erase answer means the slot is held (or cannot be erased), not a failure.
    static func isRefusedErase(_ error: SMPDeviceError) -> Bool {
        error == .image(.noFreeSlot) || error.status == .badState || error.status == .notSupported
    }
}
