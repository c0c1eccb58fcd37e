/// The device's SMP buffers (OS command 6): `{"buf_size": uint, "buf_count": uint}`.
public struct McuMgrParameters: Codable, Sendable, Equatable {
    /// Size of one SMP buffer in bytes, the 8-byte header included: no request may be larger.
    public var bufferSize: Int
    /// Number of SMP buffers: keep at most `bufferCount - 1` requests in flight.
    public var bufferCount: Int

    /// Makes a parameter set.
    public init(bufferSize: Int, bufferCount: Int) {
        self.bufferSize = bufferSize
        self.bufferCount = bufferCount
    }

    private enum CodingKeys: String, CodingKey {
        case bufferSize = "buf_size", bufferCount = "buf_count"
    }
}

extension McuMgrParameters: CustomStringConvertible {
    /// `buf_size: 2048, buf_count: 4`, with the device's own names.
    public var description: String { "buf_size: \(bufferSize), buf_count: \(bufferCount)" }
}
