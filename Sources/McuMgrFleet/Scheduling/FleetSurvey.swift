import McuMgrConnection
import Synchronization

/// Reads every device of a fleet once, within a ``FleetConcurrency``: the shared part of a dry
/// run and of `fleet list`. Each device gets its own session; nothing is retried.
enum FleetSurvey {
    /// Runs `read` on a session to each device and returns the results in fleet order; a device
    /// that cannot be resolved or connected gets `unreachable`'s result instead. Once the calling
    /// task is cancelled no further device is started: the results hold the devices read or tried
    /// so far (a partial report).
    static func each<Result: Sendable>(
        _ devices: [FleetDevice], concurrency: FleetConcurrency, connector: FleetConnector,
        read: @escaping @Sendable (FleetDevice, DeviceConnection) async -> Result,
        unreachable: @escaping @Sendable (FleetDevice, FleetFailure) -> Result
    ) async -> [Result] {
        let (items, unresolved) = connector.resolve(devices)
        let results = Mutex<[Int: Result]>(Dictionary(uniqueKeysWithValues: unresolved.map { ($0.0.index, unreachable($0.0, $0.1)) }))
        await FleetScheduler.run(
            items, concurrency: concurrency, gate: { !Task.isCancelled },
            work: { item in
                let value: Result
                do throws(ConnectionError) {
                    let connection = try await connector.connect(item.spec)
                    value = await read(item.device, connection)
                    await connection.close()
                } catch {
                    value = unreachable(item.device, FleetFailure(phase: .connect, reason: .connection(error), reachedDevice: false))
                }
                results.withLock { $0[item.device.index] = value }
            },
            skip: { _ in })
        let collected = results.withLock { $0 }
        return devices.compactMap { collected[$0.index] }
    }
}
