import CBOR
import SMP

/// Where an upload's chunks go: image upload (group 1) or file upload (group 8).
///
/// The upload engine knows nothing of either request's keys: a target builds each chunk's
/// request and reads the device's answer; the engine sizes, orders and paces the chunks.
public protocol UploadTarget: Sendable {
    /// The session the chunks travel through.
    var client: SMPClient { get }
    /// Whether the device finds a broken-off upload again from a first chunk (image upload's `sha`);
    /// otherwise the engine asks with a chunk at the last acknowledged offset (file upload).
    var resumesFromFirstChunk: Bool { get }
    /// The request carrying `data` at `offset` of a file of `totalLength` bytes.
    func request(offset: Int, data: ArraySlice<UInt8>, totalLength: Int, isFirst: Bool) throws -> UploadChunkRequest
    /// Reads the device's whole answer to a chunk (error fields included) as an acknowledgement,
    /// or throws the device's error (`SMPError.device`) or a malformed answer (`.invalidResponse`).
    func acknowledgement(from response: CBORValue) throws(SMPError) -> UploadAcknowledgement
}

/// One chunk's request: where it goes and its CBOR map.
public struct UploadChunkRequest: Sendable {
    /// Read or write (uploads write).
    public var operation: SMPOperation = .write
    /// Whether the session may resend the chunk on a timeout (upload chunks carry their offset: yes).
    public var retryPolicy: SMPRetryPolicy = .resend
    /// The management group.
    public var group: SMPGroup
    /// The command within the group.
    public var command: UInt8
    /// The request map.
    public var payload: CBORValue

    /// Makes a request.
    public init(group: SMPGroup, command: UInt8, payload: CBORValue) {
        self.group = group
        self.command = command
        self.payload = payload
    }

    /// The chunk request of a typed upload request (image or file upload), keeping its group,
    /// command, operation and retry policy. The request builds its own CBOR tree, taken as it is:
    /// no `Encodable` pass and no dynamic cast per chunk. (A request that is only `Encodable` goes
    /// through ``init(group:command:payload:)`` with `CBOREncoder().encodeValue(_:)`.)
    public init<Request: SMPRequest & CBORValueRepresentable>(_ request: Request) {
        self.init(group: Request.group, command: Request.command, payload: request.cborValue)
        operation = Request.operation
        retryPolicy = Request.retryPolicy
    }
}

extension UploadTarget {
    /// Exact size of the whole request packet (8-byte header included) for a chunk of `dataLength`
    /// bytes at `offset`: the encoded request with empty data, plus the data and its longer length head.
    public func packetSize(offset: Int, dataLength: Int, totalLength: Int, isFirst: Bool) throws -> Int {
        let empty = try request(offset: offset, data: [], totalLength: totalLength, isFirst: isFirst)
        let emptySize = CBORWriter().encode(empty.payload).count
        return SMPHeader.size + emptySize - cborByteStringHeadLength(0) + cborByteStringHeadLength(dataLength) + dataLength
    }
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

extension UploadAcknowledgement {
    /// Reads `off`, and `match` when present, from a chunk's answer; a device error in it is thrown
    /// as `SMPError.device`, a missing `off` as `SMPError.invalidResponse` naming `upload`.
    public init(response: CBORValue, upload: String) throws(SMPError) {
        if let error = try SMPDeviceError(response: response) { throw .device(error) }
        guard let next = response["off"]?.intValue else {
            throw .invalidResponse("\(upload) answer has no integer \"off\": \(response)")
        }
        self.init(nextOffset: next, match: response["match"]?.boolValue)
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
