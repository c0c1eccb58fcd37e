/// Group 5, Mynewt's crash test (`test/crash_test`): `{"t": "div0" | "jump0" | "ref0" | "assert" |
/// "wdog"}` is answered, then the device crashes a moment later and reboots, with the crash as its
/// reset reason (in the device log and ``SimulatedDevice/lastResetReason``). Another `t` is `EINVAL`.
struct CrashGroup: ManagementGroup {
    let id: UInt16 = 5
    let name = "crash mgmt"
    let handlerCount = 1

    /// How long after answering the device crashes (Mynewt's `CRASH_TEST_MGMT_DELAY`).
    static let delay = Duration.milliseconds(50)

    /// The crash tests Mynewt's `crash_device()` knows.
    static let tests: Set<String> = ["div0", "jump0", "ref0", "assert", "wdog"]

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        guard request.header.command == 0, request.isWrite else { return nil }
        guard let test = try request.fields().text("t"), Self.tests.contains(test) else { throw StatusError(MgmtError.invalid) }
        device.record(.warn, .os, "crash test \(test) requested")
        device.effects.append(.reboot(after: Self.delay, reason: "crash (\(test))"))
        return .empty
    }
}
