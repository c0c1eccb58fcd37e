/// OS console-echo control request (group 0, command 1): `{"echo": 0|1}`, as Mynewt reads it.
///
/// Zephyr does not implement this command and answers `MGMT_ERR_ENOTSUP`.
public struct ConsoleEchoRequest: Codable, Sendable, Equatable {
    /// 1 to turn the console echo on, 0 to turn it off.
    public var echo: Int

    /// Makes a request that turns the echo on or off.
    public init(on: Bool) { echo = on ? 1 : 0 }
}
