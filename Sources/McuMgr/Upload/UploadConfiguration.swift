/// How the upload engine paces and sizes chunks.
public struct UploadConfiguration: Sendable, Hashable {
    /// Chunk requests kept in flight at once (≥ 1). Defaults come from the device's `buf_count − 1`.
    public var pipelineDepth: Int
    /// Each chunk's data length is a multiple of this (1, 2, 4, 8 or 16), so offsets stay aligned.
    public var byteAlignment: Int
    /// The largest request packet (header included) to send.
    public var packetSize: Int
    /// How long to wait for each chunk's response.
    public var chunkTimeout: Duration
    /// How often the session resends one chunk request with the same sequence number before giving it up.
    public var chunkRetries: Int
    /// Failures in a row without progress (timeouts, busy answers, reconnects) after which the upload fails.
    public var maximumFailuresWithoutProgress: Int
    /// How long to wait for a dropped link to come back.
    public var reconnectTimeout: Duration

    /// Makes a configuration.
    public init(
        pipelineDepth: Int = 1, byteAlignment: Int = 1, packetSize: Int,
        chunkTimeout: Duration = .seconds(2), chunkRetries: Int = 1,
        maximumFailuresWithoutProgress: Int = 12, reconnectTimeout: Duration = .seconds(30)
    ) {
        self.pipelineDepth = pipelineDepth
        self.byteAlignment = byteAlignment
        self.packetSize = packetSize
        self.chunkTimeout = chunkTimeout
        self.chunkRetries = chunkRetries
        self.maximumFailuresWithoutProgress = maximumFailuresWithoutProgress
        self.reconnectTimeout = reconnectTimeout
    }

    /// The alignments the engine accepts.
    public static let supportedAlignments: Set<Int> = [1, 2, 4, 8, 16]
}
