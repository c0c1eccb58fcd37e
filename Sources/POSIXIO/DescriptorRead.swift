/// What one read of a ``PolledDescriptor`` gives: bytes, or (once, last) why it ended.
public enum DescriptorRead: Sendable, Hashable {
    /// Bytes received: part of a byte stream, or one whole datagram.
    case bytes([UInt8])
    /// The descriptor's I/O ended; nothing follows.
    case end(DescriptorEnd)
}
