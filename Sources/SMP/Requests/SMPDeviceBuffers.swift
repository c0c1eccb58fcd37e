/// The device's SMP buffers (OS group, command 6, "MCUmgr parameters"): the size of the buffer
/// that holds one whole SMP packet (`buf_size`), and how many there are (`buf_count`).
///
/// The session reads them once (``SMPClient/negotiate(reassemblyBufferSize:)``) and bounds every
/// request by `bufferSize`; uploads take their default pipeline depth from `bufferCount`.
public struct SMPDeviceBuffers: Codable, Sendable, Hashable, CustomStringConvertible {
    /// `buf_size`: the largest SMP packet (header included) the device takes.
    public var bufferSize: Int
    /// `buf_count`: how many such buffers the device has.
    public var bufferCount: Int

    /// The smallest `buf_size` a device can work with (a header and a small request).
    public static let minimumBufferSize = 64

    /// Makes a value.
    public init(bufferSize: Int, bufferCount: Int) {
        self.bufferSize = bufferSize
        self.bufferCount = bufferCount
    }

    enum CodingKeys: String, CodingKey {
        case bufferSize = "buf_size"
        case bufferCount = "buf_count"
    }

    /// Refuses values no device can have (a `buf_size` too small for a request, or past what a
    /// header can describe; a `buf_count` below 1) as an invalid response naming the value.
    public func validated() throws(SMPError) -> SMPDeviceBuffers {
        guard bufferSize >= Self.minimumBufferSize, bufferSize <= SMPPacketAssembler.largestPacket else {
            throw .invalidResponse(
                "the device reports buf_size \(bufferSize), which no SMP device can have (\(Self.minimumBufferSize) to \(SMPPacketAssembler.largestPacket) bytes)")
        }
        guard bufferCount >= 1 else {
            throw .invalidResponse("the device reports buf_count \(bufferCount); a device has at least one buffer")
        }
        return self
    }

    /// `buf_size 2048, buf_count 4`.
    public var description: String { "buf_size \(bufferSize), buf_count \(bufferCount)" }
}

/// Asks for the device's SMP buffer size and count (OS group, command 6).
public struct SMPDeviceBuffersRead: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = SMPDeviceBuffers
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 6.
    public static var command: UInt8 { 6 }

    /// Makes the request (it has no fields).
    public init() {}
}
