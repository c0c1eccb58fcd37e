import CBOR
import Hex

/// One log entry from log show (group 4, command 0), Mynewt's shape.
public struct LogEntry: Codable, Sendable, Equatable {
    /// The message bytes: UTF-8 text, or one CBOR item when `type` is `"cbor"`.
    public var message: [UInt8]
    /// Time stamp in microseconds (device time).
    public var timestamp: UInt64
    /// Severity level (see `LogManager.levelList()`).
    public var level: Int
    /// The entry's index in the log.
    public var index: Int
    /// The module id (see `LogManager.moduleList()`).
    public var module: Int
    /// `"str"` or `"cbor"`, when the device says.
    public var type: String?

    /// Makes an entry.
    public init(message: [UInt8], timestamp: UInt64, level: Int, index: Int, module: Int, type: String? = nil) {
        self.message = message
        self.timestamp = timestamp
        self.level = level
        self.index = index
        self.module = module
        self.type = type
    }

    /// The message as text, unless it is a CBOR item or not valid UTF-8.
    public var text: String? {
        guard type != "cbor" else { return nil }
        return String(validating: message, as: UTF8.self)
    }

    /// Reads an entry; `msg` may be a byte string or (older Mynewt) a text string, taken as its UTF-8 bytes.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(CBORValue.self, forKey: .message) {
        case .bytes(let bytes): message = bytes
        case .text(let text): message = Array(text.utf8)
        case let other:
            throw DecodingError.typeMismatch([UInt8].self, .init(codingPath: c.codingPath + [CodingKeys.message], debugDescription: "expected a byte or text string, found \(other)"))
        }
        timestamp = try c.decodeIfPresent(UInt64.self, forKey: .timestamp) ?? 0
        level = try c.decodeIfPresent(Int.self, forKey: .level) ?? 0
        index = try c.decode(Int.self, forKey: .index)
        module = try c.decodeIfPresent(Int.self, forKey: .module) ?? 0
        type = try c.decodeIfPresent(String.self, forKey: .type)
    }

    /// Writes the entry with its message as a byte string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeByteString(message, forKey: .message)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encode(level, forKey: .level)
        try c.encode(index, forKey: .index)
        try c.encode(module, forKey: .module)
        try c.encodeIfPresent(type, forKey: .type)
    }

    private enum CodingKeys: String, CodingKey {
        case message = "msg", timestamp = "ts", level, index, module, type
    }
}

extension LogEntry: CustomStringConvertible {
    /// `[3] ts=1000 level=1 module=0 the text` (the message as hex when it is not text).
    public var description: String {
        "[\(index)] ts=\(timestamp) level=\(level) module=\(module) \(text ?? message.hexString)"
    }
}
