import SMP

/// The statistics group, 2: list the statistics groups and read one's counters.
public struct StatsManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Lists the names of the device's statistics groups.
    public func list() async throws(SMPError) -> [String] {
        try await client.send(StatsListRead()).names
    }

    /// Reads the counters of the statistics group `group`.
    ///
    /// An unknown group throws `SMPError.device(.stats(.invalidGroup))`. Zephyr 3.4-era devices
    /// report that error under group 63 instead of 2; since the statistics group never yields the
    /// basic group's errors, such an error is given back as the statistics error of the same number.
    public func read(group: String) async throws(SMPError) -> StatsGroup {
        do throws(SMPError) {
            var result = try await client.send(StatsReadRequest(name: group))
            if result.name.isEmpty { result.name = group }
            return result
        } catch .device(.basic(let misfiled)) {
            throw .device(.stats(StatsGroupError(rawValue: misfiled.rawValue)))
        }
    }
}
