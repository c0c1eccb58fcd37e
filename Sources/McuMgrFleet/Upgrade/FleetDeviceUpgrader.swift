import Logging
import McuMgr
import McuMgrConnection
import SMP

/// One device's part of a fleet upgrade: attempts with back-off between them, each a fresh
/// session and one `FirmwareUpgradeManager` upgrade, and for canaries a health check after.
struct FleetDeviceUpgrader: Sendable {
    let images: [FirmwareUpgradeImage]
    let configuration: FleetConfiguration
    let connector: FleetConnector
    let board: FleetStatusBoard
    let control: FleetControl
    let broadcast: FleetEventBroadcast<FleetEvent>
    let logger: Logger

    /// The states in which an upgrade changes the device.
    static let changingStates: Set<FirmwareUpgradeState> = [.upload, .eraseAppSettings, .test, .reset, .confirm]

    /// Upgrades the device, retrying as configured, and returns how it ended.
    func run(_ item: FleetSlotItem, isCanary: Bool) async -> FleetDeviceOutcome {
        let index = item.device.index
        var attempt = 0
        while true {
            attempt += 1
            board.update(index) { status in
                status.attempts = attempt
                status.phase = .connecting
                status.progress = nil
            }
            emit(item, .attemptStarted(attempt))
            switch await attemptOnce(item) {
            case .success(let report):
                if isCanary, let failure = await checkHealth(item) { return .failed(failure) }
                return board.status(of: index).changedDevice ? .upgraded(report) : .unchanged(report)
            case .failure(let failure):
                board.update(index) { $0.lastFailure = failure }
                guard !control.isCancelled, let delay = configuration.retryDelay(after: failure, attempt: attempt) else { return .failed(failure) }
                logger.debug("\(item.device.label): \(failure); retrying in \(delay)")
                board.update(index) { $0.phase = .waitingToRetry }
                emit(item, .retrying(after: delay, failure))
                do {
                    try await connector.clock.sleep(for: delay)
                } catch {
                    return .failed(cancelled(item))
                }
                if control.isCancelled { return .failed(cancelled(item)) }
            }
        }
    }

    /// One attempt: connect, upgrade, close.
    private func attemptOnce(_ item: FleetSlotItem) async -> Result<FirmwareUpgradeReport, FleetFailure> {
        let index = item.device.index
        let connection: DeviceConnection
        do {
            connection = try await connector.connect(item.spec)
        } catch {
            return .failure(FleetFailure(phase: .connect, reason: .connection(error), reachedDevice: board.status(of: index).reachedDevice))
        }
        var deviceLogger = logger
        deviceLogger[metadataKey: "device"] = "\(item.device.label)"
        let upgrade: FirmwareUpgrade
        do {
            upgrade = try FirmwareUpgradeManager(client: connection.client, logger: deviceLogger)
                .start(images: images, configuration: configuration.upgrade)
        } catch {
            await connection.close()
            return .failure(FleetFailure(phase: .upgrade(error.state), reason: .upgrade(error), reachedDevice: false))
        }
        control.register(upgrade, for: index)
        for await event in upgrade.events {
            board.update(index) { status in
                switch event {
                case .stateChanged(let state):
                    status.phase = .upgrading(state)
                    if state != .none && state != .requestMcuMgrParameters { status.reachedDevice = true }
                    if Self.changingStates.contains(state) { status.changedDevice = true }
                case .uploadProgress(_, let progress):
                    status.progress = progress
                case .completed:
                    status.reachedDevice = true
                case .failed:
                    break
                }
            }
            emit(item, .upgrade(event))
        }
        let result: Result<FirmwareUpgradeReport, FleetFailure>
        do {
            result = .success(try await upgrade.result())
        } catch {
            result = .failure(FleetFailure(phase: .upgrade(error.state), reason: .upgrade(error), reachedDevice: board.status(of: index).reachedDevice))
        }
        control.unregister(index)
        await connection.close()
        return result
    }

    /// Reads the canary's image table on a new session: every image of the upgrade must run, and
    /// be confirmed when the mode confirms (present in a slot, for upload-only). Nil when healthy.
    private func checkHealth(_ item: FleetSlotItem) async -> FleetFailure? {
        board.update(item.device.index) { $0.phase = .checkingHealth }
        emit(item, .checkingHealth)
        let connection: DeviceConnection
        do {
            connection = try await connector.connect(item.spec)
        } catch {
            return FleetFailure(phase: .healthCheck, reason: .connection(error), reachedDevice: true)
        }
        let slots: [ImageSlot]
        do {
            slots = try await ImageManager(client: connection.client).list(options: .persistent(for: configuration.healthCheckTimeout))
        } catch {
            await connection.close()
            return FleetFailure(phase: .healthCheck, reason: .session(error), reachedDevice: true)
        }
        await connection.close()
        guard let problem = Self.healthProblem(slots: slots, images: images, mode: configuration.upgrade.mode) else { return nil }
        return FleetFailure(phase: .healthCheck, reason: .unhealthy(problem), reachedDevice: true)
    }

    /// What is wrong with a device holding `slots` after an upgrade of `images` in `mode`; nil when nothing is.
    static func healthProblem(slots: [ImageSlot], images: [FirmwareUpgradeImage], mode: FirmwareUpgradeMode) -> String? {
        for image in images {
            let mine = slots.filter { $0.image == image.index && $0.hash == image.image.hash }
            if mode == .uploadOnly {
                if mine.isEmpty { return "image \(image.index) is not in any slot after the upgrade" }
                continue
            }
            guard let running = mine.first(where: \.active) else {
                let version = slots.first { $0.image == image.index && $0.active }?.version ?? "nothing"
                return "image \(image.index) does not run the new image \(image.image.version.deviceString) (it runs \(version))"
            }
            if (mode == .testAndConfirm || mode == .confirmOnly) && !running.confirmed {
                return "image \(image.index) runs the new image unconfirmed (MCUboot reverts it at the next reset)"
            }
        }
        return nil
    }

    /// The failure of a device whose retry wait the fleet's cancellation cut short.
    private func cancelled(_ item: FleetSlotItem) -> FleetFailure {
        let status = board.status(of: item.device.index)
        return FleetFailure(
            phase: status.lastFailure?.phase ?? .connect,
            reason: .upgrade(FirmwareUpgradeError(state: .none, reason: .cancelled)), reachedDevice: status.reachedDevice)
    }

    private func emit(_ item: FleetSlotItem, _ event: FleetDeviceEvent) {
        broadcast.yield(.device(item.device, event))
    }
}
