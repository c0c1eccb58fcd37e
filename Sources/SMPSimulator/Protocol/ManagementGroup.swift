/// One management group on the device: its handlers and its SMP v1 error translation.
protocol ManagementGroup: Sendable {
    /// The group id.
    var id: UInt16 { get }
    /// The name enumeration details report.
    var name: String { get }
    /// How many command handlers the group registers.
    var handlerCount: Int { get }
    /// Runs the handler for the request's command and operation; nil when there is none (`ENOTSUP`).
    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult?
    /// Translates a group error into the `MGMT_ERR_*` status an SMP v1 request gets.
    func translateForV1(_ code: DeviceErrorCode) -> DeviceErrorCode
}

extension ManagementGroup {
    /// Groups without a translator answer `MGMT_ERR_EUNKNOWN` (smp-reference §4.1).
    func translateForV1(_ code: DeviceErrorCode) -> DeviceErrorCode { MgmtError.unknown }
}
