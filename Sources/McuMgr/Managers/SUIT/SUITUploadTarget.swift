import CBOR
import SMP

/// The SUIT group's chunked uploads: the candidate envelope (command 2), an image the device asked
/// for by session id (command 4), and a raw image for a cache partition (command 5).
///
/// Chunks carry `off` and `data`; the first also `len` (and `defer_install` when set); resource and
/// cache chunks carry their `stream_session_id` or `target_id` on every chunk, as Nordic's clients do.
/// A first chunk restarts the transfer on the device (it erases the partition), so an interrupted
/// upload is found again by offset. A device that receives a chunk at another offset than it expects
/// answers `rc` 1 with the offset it expects in `off` (nRF Connect SDK's handlers): that is read as
/// an acknowledgement of that offset, so the engine continues from it.
public struct SUITUploadTarget: UploadTarget {
    /// What is uploaded.
    public enum Kind: Sendable, Hashable {
        /// The candidate envelope; with `deferInstall` the device stores it without processing it.
        case envelope(deferInstall: Bool)
        /// The image the device asked for in the poll answer with this session id.
        case resource(sessionID: UInt32)
        /// A raw image for the cache partition `target`.
        case cache(target: Int)
    }

    /// The session.
    public let client: SMPClient
    /// What is uploaded.
    public let kind: Kind
    /// Found again by offset: a first chunk restarts the transfer.
    public var resumesFromFirstChunk: Bool { false }

    /// Makes a target.
    public init(client: SMPClient, kind: Kind) {
        self.client = client
        self.kind = kind
    }

    /// The command of this kind of upload.
    public var command: SUITCommand {
        switch kind {
        case .envelope: return .envelopeUpload
        case .resource: return .missingImageUpload
        case .cache: return .cacheRawUpload
        }
    }

    /// The chunk's map: `off`, `data`, and `len` (with `defer_install`) on the first; the session or target id.
    public func request(offset: Int, data: ArraySlice<UInt8>, totalLength: Int, isFirst: Bool) throws -> UploadChunkRequest {
        var entries: [(key: CBORValue, value: CBORValue)] = [
            (.text("off"), .unsigned(UInt64(offset))),
            (.text("data"), .bytes(Array(data))),
        ]
        if isFirst { entries.append((.text("len"), .unsigned(UInt64(totalLength)))) }
        switch kind {
        case .envelope(let deferInstall):
            if isFirst && deferInstall { entries.append((.text("defer_install"), .bool(true))) }
        case .resource(let sessionID):
            entries.append((.text("stream_session_id"), .unsigned(UInt64(sessionID))))
        case .cache(let target):
            entries.append((.text("target_id"), .unsigned(UInt64(target))))
        }
        return UploadChunkRequest(group: .suit, command: command.rawValue, payload: .map(entries))
    }

    /// The answer's `off`; `rc` 1 beside an `off` is the device naming the offset it expects.
    public func acknowledgement(from response: CBORValue) throws(SMPError) -> UploadAcknowledgement {
        if response["rc"]?.intValue == SMPReturnCode.unknown.rawValue, let expected = response["off"]?.intValue {
            return UploadAcknowledgement(nextOffset: expected)
        }
        return try UploadAcknowledgement(response: response, upload: "SUIT \(command) upload")
    }
}
