import SMP

/// How the upload engine paces and sizes chunks. Depth and alignment are checked here, in one
/// place, for uploads and firmware upgrades alike.
public struct UploadConfiguration: Sendable, Hashable {
    /// Chunk requests kept in flight at once (1–255); `nil` takes the device's `buf_count − 1`
    /// (at most ``maximumDefaultDepth``), or 1 when the device does not say.
    public var pipelineDepth: Int?
    /// Each chunk's data length is a multiple of this (1, 2, 4, 8 or 16), so offsets stay aligned.
    public var byteAlignment: Int
    /// How long to wait for each chunk's response.
    public var chunkTimeout: Duration
    /// How often the session resends one chunk request with the same sequence number before giving it up.
    public var chunkRetries: Int
    /// Answers in a row that do not move the device past the furthest offset it reported
    /// (timeouts, busy answers, offsets that stay put or go back, reconnects) after which the
    /// upload fails as stalled.
    public var maximumFailuresWithoutProgress: Int
    /// How many times the device may lose the whole upload (answer offset 0 again) before the
    /// upload fails as stalled.
    public var maximumRestarts: Int
    /// Whether the upload reads the device's buffers (`mcumgr params`) before its first chunk
    /// when the session has not: they cap the packet size and give the default depth. A caller
    /// that fixed both the packet size and ``pipelineDepth`` may save that round trip, as the Go
    /// `mcumgr` CLI always does; it is read anyway when ``pipelineDepth`` is `nil`.
    public var readsDeviceBuffers: Bool

    /// Makes a configuration.
    public init(
        pipelineDepth: Int? = nil, byteAlignment: Int = 1, chunkTimeout: Duration = .seconds(2), chunkRetries: Int = 1,
        maximumFailuresWithoutProgress: Int = 12, maximumRestarts: Int = 3, readsDeviceBuffers: Bool = true
    ) {
        self.pipelineDepth = pipelineDepth
        self.byteAlignment = byteAlignment
        self.chunkTimeout = chunkTimeout
        self.chunkRetries = chunkRetries
        self.maximumFailuresWithoutProgress = maximumFailuresWithoutProgress
        self.maximumRestarts = maximumRestarts
        self.readsDeviceBuffers = readsDeviceBuffers
    }

    /// The alignments the engine accepts.
    public static let supportedAlignments: Set<Int> = [1, 2, 4, 8, 16]
    /// The deepest pipeline taken by default from a device's `buf_count`.
    public static let maximumDefaultDepth = 32

    /// Refuses a depth or alignment the engine cannot use, with the reason.
    public func validate() throws(UploadError) {
        if let depth = pipelineDepth, !(1...255).contains(depth) {
            throw .invalidConfiguration("pipeline depth must be 1 to 255, not \(depth)")
        }
        guard Self.supportedAlignments.contains(byteAlignment) else {
            throw .invalidConfiguration("byte alignment must be 1, 2, 4, 8 or 16, not \(byteAlignment)")
        }
        guard maximumFailuresWithoutProgress >= 0, maximumRestarts >= 0, chunkRetries >= 0 else {
            throw .invalidConfiguration("failure limits and retries cannot be negative")
        }
    }

    /// The pipeline depth for a device with `buffers`: the configured one, else `buf_count − 1`
    /// capped at ``maximumDefaultDepth``, else 1.
    public func depth(for buffers: SMPDeviceBuffers?) -> Int {
        if let pipelineDepth { return pipelineDepth }
        guard let count = buffers?.bufferCount else { return 1 }
        return min(max(count - 1, 1), Self.maximumDefaultDepth)
    }
}
