import SMP

/// Mynewt's run group (7): lists and runs the test suites built into the device. Zephyr does not
/// offer it (`MGMT_ERR_ENOTSUP`); an unknown suite is `MGMT_ERR_ENOENT`.
public struct RunManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Runs the suite `name` (nil: every suite), tagging its log lines with `token`.
    public func test(_ name: String? = nil, token: String? = nil, options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) {
        _ = try await client.send(RunTestRequest(testName: name, token: token), options: options)
    }

    /// The suites the device can run.
    public func list(options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> [String] {
        try await client.send(RunListRead(), options: options).suites
    }
}
