/// Why a write to a ``PolledDescriptor`` did not complete.
public enum DescriptorWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The descriptor's I/O ended (before or while the bytes were written): nothing more is written.
    case ended(DescriptorEnd)
    /// This datagram was refused; the descriptor stays open (datagram descriptors only: on a
    /// byte stream a failed write ends the descriptor, as the stream is then out of step).
    case refused(SystemCallError)
    /// The writing task was cancelled (descriptors made with `writesStopOnCancellation`); a byte
    /// stream may carry the first part of the bytes.
    case cancelled

    /// One line naming the cause.
    public var description: String {
        switch self {
        case .ended(let end): return "the descriptor is closed: \(end)"
        case .refused(let error): return error.description
        case .cancelled: return "the write was cancelled"
        }
    }
}
