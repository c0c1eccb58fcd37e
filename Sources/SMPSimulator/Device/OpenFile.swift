import SMP

/// The FS group's one open-file context, shared by upload and download (`fs_mgmt_ctxt`).
struct OpenFile: Sendable {
    enum Mode: Sendable { case upload, download }

    /// Inactivity after which the file closes by itself (`..._FILE_AUTOMATIC_IDLE_CLOSE_TIME`).
    static let idleCloseTime: Duration = .seconds(4)

    var mode: Mode
    var path: String
    /// Expected offset of the next request.
    var offset: Int
    /// Total length (0 when an upload lost it).
    var length: Int
    /// The transport that owns the transfer.
    var transport: Int
    /// When the transfer was last used.
    var lastUsed: SMPInstant

    /// The transfer reached its length.
    var isFinished: Bool { length > 0 && offset >= length }
}
