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

/// One SMP request taken out of a received buffer.
struct Request: Sendable {
    let header: RequestHeader
    let payload: ArraySlice<UInt8>
    /// Which transport it came over (the FS group ties an open file to its transport).
    let transport: Int

    var isRead: Bool { header.isRead }
    var isWrite: Bool { header.isWrite }

    /// The payload as a request map (`EINVAL` when it is not one).
    func fields() throws(StatusError) -> RequestFields {
        try RequestFields(payload: payload)
    }
}
