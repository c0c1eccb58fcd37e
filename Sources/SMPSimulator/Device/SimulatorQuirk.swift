/// One rule of the protocol that a simulated device can be told to break (`mcumgr-sim --quirk
/// NAME`), so that a conformance checker (`mcumgr conformance`) is seen to catch it. Each quirk
/// is checked where the device applies the rule; a device configured without quirks breaks none.
public enum SimulatorQuirk: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Answers carry the request's sequence number plus one.
    case wrongSequence = "wrong-seq"
    /// Every answer has operation 3 (write response), the answers to reads included.
    case wrongOperation = "wrong-op"
    /// A request that arrives while every buffer is taken is dropped in silence, not answered
    /// `MGMT_ERR_ENOMEM` (shows only when requests wait for buffers: give the link some latency).
    case noRefusalWhenFull = "no-enomem"
    /// An image upload chunk sent again at an offset already written is written once more, at the
    /// device's offset, instead of being answered with the offset expected.
    case duplicateWrites = "duplicate-writes"
    /// Group errors are answered in SMP v1's form (the translated `rc`) to SMP v2 requests too.
    case v1ErrorsOnly = "v1-errors"
    /// SMP-level statuses (unknown group or command, `EINVAL`, …) are answered to SMP v2 requests
    /// as `err {group, rc}` instead of a top-level `rc`.
    case statusInErr = "status-in-err"
    /// After a packet whose length field claims more bytes than arrived, the device answers
    /// nothing for ``DeviceConfiguration/wedgeDuration`` (then recovers, as after a watchdog reset).
    case wedgesOnBadLength = "wedge-on-bad-length"
    /// Success answers carry an extra `"rc": 0` beside the keys the protocol lists.
    case extraKeys = "extra-keys"
    /// A request map with a key no command reads is refused with `MGMT_ERR_EINVAL`.
    case refusesUnknownKeys = "strict-keys"
    /// An indefinite-length request map (`0xbf … 0xff`) is refused with `MGMT_ERR_EINVAL`.
    case refusesIndefiniteMaps = "no-indefinite-maps"
    /// A byte string is read where a text string is required, instead of refusing it with `EINVAL`.
    case lenientTypes = "lenient-types"
    /// A first upload chunk with the `sha` of the upload in progress starts it over instead of
    /// answering the offset reached.
    case noResume = "no-sha-resume"
    /// Echo has a write handler only: echo sent as a read is answered `MGMT_ERR_ENOTSUP`.
    case echoWriteOnly = "echo-write-only"

    /// The name `--quirk` takes.
    public var description: String { rawValue }

    /// The rule the quirk breaks, in a line.
    public var rule: String {
        switch self {
        case .wrongSequence: return "answers echo the request's sequence number"
        case .wrongOperation: return "a read is answered with operation 1, a write with 3"
        case .noRefusalWhenFull: return "a request beyond buf_count is answered MGMT_ERR_ENOMEM (or queued), not dropped"
        case .duplicateWrites: return "an upload chunk resent at an offset already written is answered with the expected off, not written again"
        case .v1ErrorsOnly: return "group errors reach SMP v2 requests as err {group, rc}"
        case .statusInErr: return "SMP-level statuses reach SMP v2 requests as a top-level rc"
        case .wedgesOnBadLength: return "a packet whose length field lies is answered or ignored, and the device answers what follows"
        case .extraKeys: return "success answers carry exactly the keys the protocol lists"
        case .refusesUnknownKeys: return "unknown keys in a request map are ignored"
        case .refusesIndefiniteMaps: return "indefinite-length request maps are accepted"
        case .lenientTypes: return "a field of the wrong CBOR type is refused with MGMT_ERR_EINVAL"
        case .noResume: return "a first upload chunk with the sha of the upload in progress resumes it"
        case .echoWriteOnly: return "echo is answered as a read and as a write"
        }
    }

    /// The request keys some command of the device reads (and those of groups a device may add:
    /// crash, run, SUIT): what ``refusesUnknownKeys`` accepts.
    static let knownRequestKeys: Set<String> = [
        "argv", "boot_mode", "confirm", "d", "data", "datetime", "defer_install", "echo", "force", "format", "groups", "hash",
        "image", "index", "len", "log_name", "max_size", "name", "off", "query", "role", "session_id", "sha", "slot", "t",
        "target_id", "testname", "token", "ts", "type", "upgrade", "val",
    ]
}
