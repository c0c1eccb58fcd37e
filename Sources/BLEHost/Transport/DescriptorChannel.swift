import DequeModule
import Glibc
import Logging
import NIOConcurrencyHelpers
import POSIXIO

/// An ``HCITransport`` over a file descriptor that carries H4 bytes: a TCP socket, a tty, or an HCI
/// user-channel socket (where each read is one packet, which the same decoder reads as well).
///
/// The descriptor runs on a ``POSIXIO/PolledDescriptor`` (a thread of its own). Writes wait, in
/// call order, until the descriptor takes every byte (partial writes continue where they stopped;
/// a failed write ends the channel, as the stream is then out of step); the consumer of `inbound`
/// decodes what the thread read with ``H4StreamDecoder``, and at most ``readAhead`` reads wait for
/// it before the thread stops reading, so a slow host makes the controller wait instead of growing memory.
final class DescriptorChannel: HCITransport {
    /// Packets from the controller, then `.closed` once.
    let inbound: AsyncStream<HCITransportEvent>
    /// What the channel is connected to, e.g. `tcp:127.0.0.1:9001`.
    let description: String
    /// How many reads (of up to ``readSize`` bytes) wait for the consumer before the thread stops reading.
    static let readAhead = 16
    /// The most bytes one read takes.
    static let readSize = 16_384

    private let core: PolledDescriptor

    /// Takes ownership of `descriptor` (made non-blocking here) and starts its thread; when this
    /// throws, the descriptor is still the caller's.
    init(adopting descriptor: Int32, description: String, maximumACLLength: Int, logger: Logger) throws(HCITransportError) {
        do {
            core = try PolledDescriptor(
                adopting: descriptor, kind: .byteStream, readSize: Self.readSize, readAhead: Self.readAhead, threadName: "hci-\(descriptor)")
        } catch {
            throw .io("cannot serve \(description): \(error)")
        }
        self.description = description
        let input = H4Input(core: core, decoder: H4StreamDecoder(maximumACLLength: maximumACLLength), name: description, logger: logger)
        self.inbound = AsyncStream(unfolding: { await input.next() })
    }

    func send(_ packet: HCIPacket) async throws(HCITransportError) {
        do {
            try await core.write(packet.h4Bytes)
        } catch {
            switch error {
            case .ended(let end): throw .closed(reason: H4Input.reason(end, name: description))
            case .refused(let failure): throw .io("writing to \(description) failed: \(errnoText(failure.errno))")
            case .cancelled: throw .closed(reason: "the send was cancelled")
            }
        }
    }

    func close() async {
        await core.close()
    }
}

/// The consumer's side of a ``DescriptorChannel``: the descriptor's reads, decoded into packets.
private final class H4Input: Sendable {
    private let core: PolledDescriptor
    private let name: String
    private let logger: Logger
    private let state: NIOLockedValueBox<State>

    private struct State {
        var decoder: H4StreamDecoder
        /// Decoded and not taken yet; the last may be `.closed`.
        var events: Deque<HCITransportEvent> = []
        /// `.closed` is queued or taken: read no more.
        var ended = false
    }

    init(core: PolledDescriptor, decoder: H4StreamDecoder, name: String, logger: Logger) {
        self.core = core
        self.name = name
        self.logger = logger
        self.state = NIOLockedValueBox(State(decoder: decoder))
    }

    /// The next packet, reading and decoding as needed; `.closed` once after the last; then nil.
    func next() async -> HCITransportEvent? {
        while true {
            let (event, ended) = state.withLockedValue { s in (s.events.popFirst(), s.ended) }
            if let event { return event }
            if ended { return nil }
            guard let read = await core.read() else { return nil }
            switch read {
            case .bytes(let bytes):
                if !decode(bytes) {
                    // The stream is out of step: the channel ends here, after the packets decoded before.
                    await core.close()
                }
            case .end(let end):
                logger.debug("\(name): \(Self.reason(end, name: name))")
                state.withLockedValue { s in
                    s.events.append(.closed(reason: Self.reason(end, name: name)))
                    s.ended = true
                }
            }
        }
    }

    /// Decodes one read into packets; false (with `.closed` queued) when the stream is out of step.
    private func decode(_ bytes: [UInt8]) -> Bool {
        state.withLockedValue { s in
            // Moved out and back, so that the decoder's callback appends to a buffer of its own
            // (and the queue keeps its storage).
            var events = s.events
            s.events = []
            defer { s.events = events }
            do {
                try s.decoder.append(bytes) { output in
                    switch output {
                    case .packet(let packet): events.append(.packet(packet))
                    case .ignored(let type, let length): logger.debug("ignored an HCI \(type) packet of \(length) bytes")
                    case .skipped(let error): logger.notice("\(error)")
                    }
                }
                return true
            } catch {
                logger.debug("\(name): \(error)")
                events.append(.closed(reason: "\(error)"))
                s.ended = true
                return false
            }
        }
    }

    /// Why the channel ended, in the transport's words.
    static func reason(_ end: DescriptorEnd, name: String) -> String {
        switch end {
        case .closed: return "the transport was closed"
        case .peerClosed: return "\(name) closed the connection"
        case .failed(let failure) where failure.call == "read": return "reading from \(name) failed: \(errnoText(failure.errno))"
        case .failed(let failure) where failure.call == "write" || failure.call == "send":
            return "writing to \(name) failed: \(errnoText(failure.errno))"
        case .failed(let failure): return "\(name): \(failure)"
        }
    }
}
