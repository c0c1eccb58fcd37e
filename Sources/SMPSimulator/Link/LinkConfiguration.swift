/// The link between a client and the simulated device: delays, throughput, buffers and flash speed.
public struct LinkConfiguration: Sendable, Hashable {
    /// Delay from when the device takes a request up to its response (plus any modelled flash
    /// time); the simulator's own computing time counts within it.
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
