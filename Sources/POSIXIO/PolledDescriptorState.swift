import DequeModule

/// What a ``PolledDescriptor``'s thread and its callers share, under its lock.
struct PolledDescriptorState {
    /// Reads not taken yet, oldest first; the first may be partly taken.
    var received: Deque<[UInt8]> = []
    /// How many bytes of `received.first` the reader has taken.
    var takenFromFirst = 0
    /// Bytes in `received` not taken yet.
    var receivedByteCount = 0
    /// The reader waiting for bytes, and the most it takes.
    var reader: CheckedContinuation<DescriptorRead?, Never>?
    var readerLimit = Int.max

    /// Writes not complete yet, in call order; the first may be partly written.
    var writes: Deque<PendingWrite> = []

    /// A non-blocking `connect` is in progress, and who waits for it.
    var connecting: Bool
    var connectWaiters: [CheckedContinuation<Result<Void, DescriptorEnd>, Never>] = []

    /// Why the thread is to stop (the owner closed, or a byte-stream write failed in a caller).
    var requestedEnd: DescriptorEnd?
    /// Why the I/O ended, once it has; the reader has been told when `endDelivered`.
    var end: DescriptorEnd?
    var endDelivered = false
    /// The descriptor is closed or given back, and the wake-up pipe closed.
    var released = false
    var closeWaiters: [CheckedContinuation<Void, Never>] = []

    /// A wake-up is in the pipe that the thread has not seen yet.
    var wakePending = false

    init(connecting: Bool) {
        self.connecting = connecting
    }

    /// Queues one read; hands the reader its first bytes if one waits.
    mutating func receive(_ bytes: [UInt8], whole: Bool) -> (CheckedContinuation<DescriptorRead?, Never>, [UInt8])? {
        received.append(bytes)
        receivedByteCount += bytes.count
        guard let waiting = reader, let first = take(upTo: readerLimit, whole: whole) else { return nil }
        reader = nil
        return (waiting, first)
    }

    /// Takes the oldest read: all of it when `whole` (a datagram) or when it fits `limit`, else its
    /// next `limit` bytes.
    mutating func take(upTo limit: Int, whole: Bool) -> [UInt8]? {
        guard let first = received.first else { return nil }
        let left = first.count - takenFromFirst
        guard !whole, limit < left else {
            received.removeFirst()
            let bytes = takenFromFirst == 0 ? first : Array(first[takenFromFirst...])
            takenFromFirst = 0
            receivedByteCount -= left
            return bytes
        }
        let bytes = Array(first[takenFromFirst..<(takenFromFirst + limit)])
        takenFromFirst += limit
        receivedByteCount -= limit
        return bytes
    }
}

/// A write waiting for the descriptor to take it.
struct PendingWrite {
    /// Tells a cancelled write's entry apart (0 when writes ignore cancellation).
    let id: UInt64
    let bytes: [UInt8]
    /// How much of `bytes` is written.
    var offset: Int
    let continuation: CheckedContinuation<Result<Void, DescriptorWriteError>, Never>
}
