import CBOR
import SMP

// nRF Connect SDK's SUIT group (66, `MGMT_GROUP_ID_PERUSER + 2`) as typed requests: the
// `subsys/mgmt/suitfu` handlers and `ug_nrf54h20_suit_smp.rst` of sdk-nrf. The chunked uploads
// (commands 2, 4 and 5) go through ``SUITUploadTarget``.

extension SMPGroup {
    /// nRF Connect SDK's SUIT group (66).
    public static let suit = SMPGroup(rawValue: 66)
}

/// The SUIT group's command numbers.
public enum SUITCommand: UInt8, Sendable, CaseIterable {
    /// Manifest roles list (read).
    case manifestList = 0
    /// The state of the manifest of one role (read).
    case manifestState = 1
    /// Candidate envelope upload (write, chunked).
    case envelopeUpload = 2
    /// Poll for an image the device asks for (read).
    case missingImageState = 3
    /// Upload of the image the device asked for (write, chunked, by session id).
    case missingImageUpload = 4
    /// Raw upload to a SUIT cache partition (write, chunked, by target id).
    case cacheRawUpload = 5
    /// Erase the DFU and cache partitions (write).
    case cleanup = 6
}

/// The roles of the manifests the device supports (SUIT command 0).
public struct SUITManifestListRead: SMPFieldlessRequest {
    /// `{"manifests": [{"role": uint}]}`.
    public typealias Response = SUITManifestList
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The SUIT group.
    public static var group: SMPGroup { .suit }
    /// Command 0.
    public static var command: UInt8 { SUITCommand.manifestList.rawValue }
    /// Makes the request.
    public init() {}
}

/// The answer to ``SUITManifestListRead``.
public struct SUITManifestList: Decodable, Sendable, Hashable {
    /// One supported manifest.
    public struct Entry: Decodable, Sendable, Hashable {
        /// Its role.
        public var role: SUITManifestRole
    }
    /// The supported manifests.
    public var manifests: [Entry]
}

/// The configuration and installed state of the manifest of one role (SUIT command 1).
public struct SUITManifestStateRead: SMPRequest {
    /// The state.
    public typealias Response = SUITManifestState
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The SUIT group.
    public static var group: SMPGroup { .suit }
    /// Command 1.
    public static var command: UInt8 { SUITCommand.manifestState.rawValue }
    /// The role, one of those the list gives.
    public var role: SUITManifestRole

    /// Makes the request.
    public init(role: SUITManifestRole) { self.role = role }
}

/// Asks whether the device, processing an envelope, wants an image (SUIT command 3).
public struct SUITMissingImagePoll: SMPFieldlessRequest {
    /// A session id and resource id, or neither.
    public typealias Response = SUITImageRequest
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The SUIT group.
    public static var group: SMPGroup { .suit }
    /// Command 3.
    public static var command: UInt8 { SUITCommand.missingImageState.rawValue }
    /// Makes the request.
    public init() {}
}

/// The answer to a poll: what the device asks for, if anything.
public struct SUITImageRequest: Decodable, Sendable, Hashable {
    /// `stream_session_id`: non-zero while the device waits for an image; nil when it waits for nothing.
    public var sessionID: UInt32?
    /// `resource_id`: what it asks for, typically a URI (`file://radio.bin`); sent as a byte string.
    public var resourceID: String?

    /// Whether the device asks for an image.
    public var isRequest: Bool { (sessionID ?? 0) != 0 && resourceID != nil }

    /// Makes an answer.
    public init(sessionID: UInt32?, resourceID: String?) {
        self.sessionID = sessionID
        self.resourceID = resourceID
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "stream_session_id", resourceID = "resource_id"
    }

    /// Reads the answer; `resource_id` as a byte string (NCS) or text.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sessionID = try c.decodeIfPresent(UInt32.self, forKey: .sessionID)
        if let bytes = try? c.decodeIfPresent(CBORValue.self, forKey: .resourceID) {
            switch bytes {
            case .bytes(let raw): resourceID = String(decoding: raw, as: UTF8.self)
            case .text(let text): resourceID = text
            default: resourceID = nil
            }
        } else {
            resourceID = nil
        }
    }
}

/// Erases the DFU and cache partitions (SUIT command 6).
public struct SUITCleanup: SMPFieldlessRequest {
    /// No fields.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The SUIT group.
    public static var group: SMPGroup { .suit }
    /// Command 6.
    public static var command: UInt8 { SUITCommand.cleanup.rawValue }
    /// Erasing twice erases the same: it may be resent.
    public static var retryPolicy: SMPRetryPolicy { .resend }
    /// Makes the request.
    public init() {}
}

/// Starts processing an envelope uploaded with `defer_install` (SUIT command 2 with `len` 0 at
/// offset 0 and no data, as Nordic's clients send it).
public struct SUITProcessEnvelope: SMPRequest {
    /// `off` (and `rc`).
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The SUIT group.
    public static var group: SMPGroup { .suit }
    /// Command 2.
    public static var command: UInt8 { SUITCommand.envelopeUpload.rawValue }
    /// `off`: 0.
    public var off = 0
    /// `len`: 0.
    public var len = 0

    /// Makes the request.
    public init() {}
}
