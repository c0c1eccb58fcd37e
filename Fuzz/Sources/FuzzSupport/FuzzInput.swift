/// A fuzz input read front to back: single bytes for choices, length-prefixed pieces for packets.
/// Reading past the end gives zeros and empty pieces, so every input is a valid program.
public struct FuzzInput {
    /// The whole input.
    public let bytes: [UInt8]
    private var cursor = 0

    /// Copies libFuzzer's buffer.
    public init(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }

    /// Whether everything was read.
    public var isAtEnd: Bool { cursor >= bytes.count }

    /// The next byte, or 0 at the end.
    public mutating func byte() -> UInt8 {
        guard cursor < bytes.count else { return 0 }
        defer { cursor += 1 }
        return bytes[cursor]
    }

    /// The next `count` bytes (fewer at the end).
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, cursor + max(0, count))
        defer { cursor = end }
        return Array(bytes[cursor..<end])
    }

    /// A piece whose length is the next two bytes (big-endian).
    public mutating func piece() -> [UInt8] {
        let length = Int(byte()) << 8 | Int(byte())
        return take(length)
    }

    /// What is left.
    public mutating func rest() -> [UInt8] { take(bytes.count - cursor) }
}
