import CBOR

/// The entries of a response map, in the order the device writes them.
typealias ResponseEntries = [(key: String, value: CBORValue)]

/// What a command handler answers.
enum HandlerResult: Sendable {
    /// Success: these keys, exactly.
    case success(ResponseEntries)
    /// An SMP-level status: `{"rc": code}`, in v1 and v2 alike.
    case status(DeviceErrorCode)
    /// A group error: v2 `{"err": {"group", "rc"}, …extra}`, v1 `{"rc": translated}`.
    case groupError(group: UInt16, code: DeviceErrorCode, extra: ResponseEntries)
    /// No response at all: a fault made the device reset or lose its link mid-request.
    case silent

    /// Success with an empty map.
    static let empty = HandlerResult.success([])

    /// A group error without extra keys.
    static func error(_ group: UInt16, _ code: DeviceErrorCode) -> HandlerResult {
        .groupError(group: group, code: code, extra: [])
    }
}
