import SMP

/// Mynewt's crash group (5): makes the device crash, to test its fault handling and reset-reason
/// reporting. Zephyr does not offer it (`MGMT_ERR_ENOTSUP`).
public struct CrashManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// What came back from a crash request.
    public enum Outcome: Sendable, Hashable {
        /// The device answered, and crashes a moment later.
        case acknowledged
        /// No answer: the device crashed before it answered.
        case noAnswer
    }

    /// Asks the device to crash with `test`; sent once (a write), a missing answer is `.noAnswer`.
    public func crash(_ test: CrashTest, options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> Outcome {
        do {
            _ = try await client.send(CrashRequest(test: test), options: options)
            return .acknowledged
        } catch .timeout {
            return .noAnswer
        }
    }
}
