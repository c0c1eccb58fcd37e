/// A check's verdict.
public enum ConformanceStatus: String, Sendable, Hashable, CaseIterable, Encodable {
    /// The device did what the protocol and the clients expect.
    case pass
    /// The device broke the rule.
    case fail
    /// The device says it does not offer what the check needs (a command it was built without).
    case unsupported = "not supported"
    /// The check did not run: it needs an option, or a state of the device, that was not there.
    case skipped
}
