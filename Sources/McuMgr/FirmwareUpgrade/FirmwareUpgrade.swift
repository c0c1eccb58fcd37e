import Logging
import SMP
import Synchronization

/// A firmware upgrade in progress: its events, its state, and pause, resume and cancel.
public final class FirmwareUpgrade: Sendable {
    /// State changes, upload progress, and the final `completed` or `failed`; then the stream ends.
    public let events: AsyncStream<FirmwareUpgradeEvent>

    private let control = UploadControl()
    private let currentState = StateCell()
    private let task = Mutex<Task<FirmwareUpgradeReport, any Error>?>(nil)

    /// The steps of an upgrade, given the control, the state callback and the progress callback.
    typealias Steps = @Sendable (
        UploadControl, _ onState: @escaping @Sendable (FirmwareUpgradeState) -> Void,
        _ onProgress: @escaping @Sendable (Int, UploadProgress) -> Void
    ) async throws(FirmwareUpgradeError) -> FirmwareUpgradeReport

    convenience init(client: SMPClient, images: [FirmwareUpgradeImage], configuration: FirmwareUpgradeConfiguration, logger: Logger) {
        self.init(clock: client.clock) { control, onState, onProgress throws(FirmwareUpgradeError) in
            let runner = FirmwareUpgradeRunner(
                client: client, images: images, configuration: configuration, control: control, logger: logger,
                onState: onState, onProgress: onProgress)
            return try await runner.run()
        }
    }

    /// Starts `steps` in the background on `clock`.
    init(clock: SMPClock, steps: @escaping Steps) {
        let (events, sink) = AsyncStream.makeStream(of: FirmwareUpgradeEvent.self, bufferingPolicy: .bufferingNewest(4096))
        self.events = events
        let control = self.control
        let onState: @Sendable (FirmwareUpgradeState) -> Void = { [currentState] state in
            currentState.set(state)
            sink.yield(.stateChanged(state))
        }
        let onProgress: @Sendable (Int, UploadProgress) -> Void = { image, progress in sink.yield(.uploadProgress(image: image, progress)) }
        let work = clock.throwingTask { () async throws -> FirmwareUpgradeReport in
            do throws(FirmwareUpgradeError) {
                let report = try await steps(control, onState, onProgress)
                sink.yield(.completed(report))
                sink.finish()
                return report
            } catch {
                sink.yield(.failed(error))
                sink.finish()
                throw error
            }
        }
        task.withLock { $0 = work }
    }

    /// The state the upgrade is in now.
    public var state: FirmwareUpgradeState { currentState.get() }

    /// Whether the upload is held.
    public var isPaused: Bool { control.isPaused }

    /// Holds the upload after the chunks in flight; other steps are not paused.
    public func pause() { control.pause() }

    /// Continues a paused upload.
    public func resume() { control.resume() }

    /// Stops the upgrade; it fails with reason `.cancelled`. The device keeps what it received
    /// and a later upgrade of the same image resumes from there.
    public func cancel() {
        control.resume()
        task.withLock { $0?.cancel() }
    }

    /// Waits for the end of the upgrade.
    public func result() async throws(FirmwareUpgradeError) -> FirmwareUpgradeReport {
        guard let work = task.withLock({ $0 }) else {
            throw FirmwareUpgradeError(state: .none, reason: .unexpectedState("the upgrade did not start"))
        }
        do {
            return try await work.value
        } catch let error as FirmwareUpgradeError {
            throw error
        } catch {
            throw FirmwareUpgradeError(state: state, reason: .unexpectedState("\(error)"))
        }
    }
}

/// The upgrade's current state, shared with the runner's callback.
private final class StateCell: Sendable {
    private let value = Mutex(FirmwareUpgradeState.none)
    func get() -> FirmwareUpgradeState { value.withLock { $0 } }
    func set(_ state: FirmwareUpgradeState) { value.withLock { $0 = state } }
}
