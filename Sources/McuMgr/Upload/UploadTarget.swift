import SMP

/// Where an upload's chunks go: image upload (group 1) or file upload (group 8).
///
/// The upload engine knows nothing of either request's keys: a target builds its requests and
/// says exactly how many bytes of each packet are not chunk data.
public protocol UploadTarget: Sendable {
    /// The session the chunks travel through.
    var client: SMPClient { get }
    /// Whether the device finds a broken-off upload again from a first chunk (image upload's `sha`);
    /// otherwise the engine asks with a chunk at the last acknowledged offset (file upload).
    var resumesFromFirstChunk: Bool { get }
    /// Size in bytes of the whole request packet (8-byte header included) for a chunk of `dataLength`
    /// bytes at `offset`, of a file of `totalLength` bytes.
    func packetSize(offset: Int, dataLength: Int, totalLength: Int, isFirst: Bool) -> Int
    /// Sends one chunk and returns the device's answer.
    func sendChunk(
        offset: Int, data: ArraySlice<UInt8>, totalLength: Int, isFirst: Bool,
        timeout: Duration, retries: Int
    ) async throws -> UploadAcknowledgement
}

/// A device's answer to one chunk.
public struct UploadAcknowledgement: Sendable, Hashable {
    /// The offset the device expects next: the bytes it holds so far.
    public var nextOffset: Int
    /// On the last chunk, whether the device found the written data's hash equal to the `sha` given (when it checks).
    public var match: Bool?

    /// Makes an acknowledgement.
    public init(nextOffset: Int, match: Bool? = nil) {
        self.nextOffset = nextOffset
        self.match = match
    }
}

/// Length in bytes of the CBOR head of a byte string of `count` bytes.
func cborByteStringHeadLength(_ count: Int) -> Int {
    switch count {
    case ..<24: return 1
    case ..<256: return 2
    case ..<65_536: return 3
    case ..<4_294_967_296: return 5
    default: return 9
    }
}
