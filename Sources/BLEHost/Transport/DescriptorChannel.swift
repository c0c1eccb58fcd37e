#if canImport(Glibc)
import Glibc
#endif
import GATT
import Logging
import NIOConcurrencyHelpers

/// An ``HCITransport`` over a file descriptor that carries H4 bytes: a TCP socket, a tty, or an HCI
/// user-channel socket (where each read is one packet, which the same decoder reads as well).
///
/// A thread of its own polls the descriptor. Writes wait, in call order, until the descriptor
/// takes every byte (partial writes continue where they stopped); reads go through
/// ``H4StreamDecoder`` and at most ``readAhead`` packets wait for the consumer before the thread
/// stops reading, so a slow host makes the controller wait instead of growing memory.
final class DescriptorChannel: HCITransport {
    /// Packets from the controller, then `.closed` once.
    let inbound: AsyncStream<HCITransportEvent>
    /// What the channel is connected to, e.g. `tcp:127.0.0.1:9001`.
    let description: String
    /// How many decoded packets wait for the consumer before the thread stops reading.
    static let readAhead = 256

    private let core: PolledDescriptor<HCITransportEvent, HCITransportError>

    /// Takes ownership of `descriptor` (made non-blocking here) and starts its thread.
    init(adopting descriptor: Int32, description: String, maximumACLLength: Int, logger: Logger) throws(HCITransportError) {
        let input = H4Input(H4StreamDecoder(maximumACLLength: maximumACLLength), name: description, logger: logger)
        core = try PolledDescriptor(
            adopting: descriptor, name: description, readAhead: Self.readAhead, readBufferSize: 16_384,
            failedWriteEndsConnection: true, closeReason: "the transport was closed",
            closedEvent: { .closed(reason: $0) }, closedError: { .closed(reason: $0) }, ioError: { .io($0) }, logger: logger,
            read: { descriptor, buffer, batch in input.read(descriptor, &buffer, &batch) },
            write: { descriptor, bytes, offset in Self.write(descriptor, bytes, from: &offset, name: description) })
        self.description = description
        let core = self.core
        self.inbound = AsyncStream(unfolding: { await core.nextEvent() })
        core.start(threadName: "hci-\(descriptor)")
    }

    func send(_ packet: HCIPacket) async throws(HCITransportError) {
        try await core.send(packet.h4Bytes).get()
    }

    func close() async {
        await core.close()
    }

    /// Writes what is left of `bytes` until the descriptor would block (a partial write continues later).
    private static func write(_ descriptor: Int32, _ bytes: [UInt8], from offset: inout Int, name: String) -> PolledWrite<HCITransportError> {
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if count > 0 {
                offset += count
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS { return .wouldBlock }
            return .failed(.io("writing to \(name) failed: \(errnoText())"))
        }
        return .complete
    }
}

/// The H4 decoder the I/O thread feeds: one read, decoded into packets.
private final class H4Input: Sendable {
    private let decoder: NIOLockedValueBox<H4StreamDecoder>
    private let name: String
    private let logger: Logger

    init(_ decoder: H4StreamDecoder, name: String, logger: Logger) {
        self.decoder = NIOLockedValueBox(decoder)
        self.name = name
        self.logger = logger
    }

    /// One read (one round per `poll`, as a byte stream may always have more); ends when the stream is out of step.
    func read(_ descriptor: Int32, _ buffer: inout [UInt8], _ batch: inout [HCITransportEvent]) -> PolledRead {
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        if count == 0 { return .ended("\(name) closed the connection") }
        if count < 0 {
            if errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK {
                return .ended("reading from \(name) failed: \(errnoText())")
            }
            return .drained
        }
        return decoder.withLockedValue { decoder in
            do {
                try decoder.append(buffer[0..<count]) { output in
                    switch output {
                    case .packet(let packet): batch.append(.packet(packet))
                    case .ignored(let type, let length): logger.debug("ignored an HCI \(type) packet of \(length) bytes")
                    case .skipped(let error): logger.notice("\(error)")
                    }
                }
                return .drained
            } catch {
                return .ended("\(error)")
            }
        }
    }
}
