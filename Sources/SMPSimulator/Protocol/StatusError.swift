/// An SMP-level status thrown out of a handler; it becomes `{"rc": code}`.
struct StatusError: Error, Sendable {
    let code: DeviceErrorCode
    init(_ code: DeviceErrorCode) { self.code = code }
}
