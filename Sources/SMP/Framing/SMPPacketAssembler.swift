/// Turns bytes that arrive in any fragmentation (BLE notifications, a raw UART stream, serial
/// frames) into whole SMP packets, using each header's data length.
///
/// Bounded: a header claiming a packet larger than `maximumPacketSize` is reported as
/// ``SMPPacketAssemblyError/oversized(declared:limit:)`` and never allocated for; the assembler
/// holds at most one partial packet. Bytes that cannot start a header (reserved bits set, an
/// operation the receiver does not take) are skipped one at a time until a plausible header is
/// found, and reported as ``SMPPacketAssemblyError/garbage(byteCount:)``.
public struct SMPPacketAssembler: Sendable {
    /// The largest packet the 16-bit length field can describe: 8 + 65535 bytes.
    public static let largestPacket = SMPHeader.size + Int(UInt16.max)

    /// What one piece of input yielded: a whole packet, or bytes skipped with the reason.
    public enum Output: Sendable, Hashable {
        /// A whole SMP packet, header included.
        case packet([UInt8])
        /// Bytes that were dropped.
        case skipped(SMPPacketAssemblyError)
    }

    /// The largest packet accepted (header included).
    public let maximumPacketSize: Int
    /// The operations a packet may carry (responses for a client, requests for a device).
    public let operations: Set<SMPOperation>
    private var pending: [UInt8] = []

    /// Makes an assembler for packets of up to `maximumPacketSize` bytes carrying one of `operations`.
    public init(maximumPacketSize: Int = SMPPacketAssembler.largestPacket, operations: Set<SMPOperation> = Set(SMPOperation.allCases)) {
        self.maximumPacketSize = min(max(maximumPacketSize, SMPHeader.size), Self.largestPacket)
        self.operations = operations
    }

    /// An assembler for what a device sends a client: responses.
    public static func responses(maximumPacketSize: Int = SMPPacketAssembler.largestPacket) -> SMPPacketAssembler {
        SMPPacketAssembler(maximumPacketSize: maximumPacketSize, operations: [.readResponse, .writeResponse])
    }

    /// An assembler for what a client sends a device: requests.
    public static func requests(maximumPacketSize: Int = SMPPacketAssembler.largestPacket) -> SMPPacketAssembler {
        SMPPacketAssembler(maximumPacketSize: maximumPacketSize, operations: [.read, .write])
    }

    /// Bytes held for a packet not yet complete.
    public var bufferedByteCount: Int { pending.count }

    /// Takes the next bytes and returns the packets they complete, in order, with any bytes skipped.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [Output] {
        var output: [Output] = []
        append(bytes) { output.append($0) }
        return output
    }

    /// Takes the next bytes and hands each completed packet (or skip) to `deliver`, in order.
    public mutating func append(_ bytes: some Collection<UInt8>, deliver: (Output) -> Void) {
        pending.append(contentsOf: bytes)
        var start = 0
        var garbage = 0
        func flushGarbage() {
            if garbage > 0 { deliver(.skipped(.garbage(byteCount: garbage))) }
            garbage = 0
        }
        while pending.count - start >= SMPHeader.size {
            guard plausibleHeader(at: start) else {
                start += 1
                garbage += 1
                continue
            }
            let total = SMPHeader.size + (Int(pending[start + 2]) << 8 | Int(pending[start + 3]))
            guard total <= maximumPacketSize else {
                flushGarbage()
                deliver(.skipped(.oversized(declared: total, limit: maximumPacketSize)))
                start += 1
                continue
            }
            guard pending.count - start >= total else { break }
            flushGarbage()
            deliver(.packet(Array(pending[start..<(start + total)])))
            start += total
        }
        flushGarbage()
        if start == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= 2 * maximumPacketSize)
        } else if start > 0 {
            pending.removeFirst(start)
        }
    }

    /// Drops a partial packet (the link went down, or a new unit says a new packet starts);
    /// returns how many bytes were dropped.
    @discardableResult
    public mutating func reset() -> Int {
        defer { pending.removeAll() }
        return pending.count
    }

    /// Whether the 8 bytes at `index` can be an SMP header for this receiver: reserved bits clear,
    /// version 1 or 2, an accepted operation.
    private func plausibleHeader(at index: Int) -> Bool {
        let first = pending[index]
        guard first & 0xE0 == 0, (first >> 3) & 0x03 <= SMPVersion.v2.rawValue else { return false }
        guard let operation = SMPOperation(rawValue: first & 0x07) else { return false }
        return operations.contains(operation)
    }
}

/// Why an ``SMPPacketAssembler`` dropped bytes.
public enum SMPPacketAssemblyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Bytes that do not start a plausible SMP header were skipped.
    case garbage(byteCount: Int)
    /// A header declared a packet larger than the limit; it was not buffered.
    case oversized(declared: Int, limit: Int)

    /// A one-line message.
    public var description: String {
        switch self {
        case .garbage(let count): return "skipped \(count) byte\(count == 1 ? "" : "s") that do not start an SMP packet"
        case .oversized(let declared, let limit):
            return "an SMP header declares a \(declared)-byte packet, more than the \(limit)-byte limit; skipped"
        }
    }
}
