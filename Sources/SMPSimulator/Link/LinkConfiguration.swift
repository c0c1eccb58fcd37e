/// The link between a client and the simulated device: delays, throughput, buffers and flash speed.
public struct LinkConfiguration: Sendable, Hashable {
    /// Delay between handling a request and sending its response.
    public var latency: Duration = .zero
    /// Link throughput in bytes per second in each direction; nil for unlimited.
    public var bandwidth: Int? = nil
    /// Time flash takes to write one byte (image and file uploads wait `bytes × this` before answering).
    public var flashWriteTimePerByte: Duration = .zero
    /// What happens to a request that arrives while all `buf_count` buffers hold requests.
    public var bufferOverflow: BufferOverflowPolicy = .answerNoMemory

    /// Makes a link; by default instant, unlimited, with `{"rc": 2}` for requests beyond `buf_count`.
    public init(
        latency: Duration = .zero, bandwidth: Int? = nil, flashWriteTimePerByte: Duration = .zero,
        bufferOverflow: BufferOverflowPolicy = .answerNoMemory
    ) {
        self.latency = latency
        self.bandwidth = bandwidth
        self.flashWriteTimePerByte = flashWriteTimePerByte
        self.bufferOverflow = bufferOverflow
    }
}
