/// An in-process ``HCITransport``: the host's end of a link whose controller is code in the same
/// process (a test's scripted controller, a fuzz target feeding bytes), for running ``LEHost`` on
/// virtual time, where a socket's thread would let time race ahead.
///
/// Both directions are bounded queues of ``capacity`` packets: a sender waits while the other side
/// has that many unread, as over a socket. ``close()`` (the host's) or ``end(reason:)`` (the
/// controller's) ends both directions.
public final class MemoryHCITransport: HCITransport {
    /// Packets from the controller, then `.closed` once.
    public let inbound: AsyncStream<HCITransportEvent>
    /// What the host sent, in order, for the controller to read; ends when the link ends.
    public let outbound: AsyncStream<HCIPacket>
    /// How many packets each direction holds before its sender waits.
    public let capacity: Int
    /// A name for messages, e.g. `memory:controller`.
    public let description: String

    private let toHost: AsyncInbox<HCITransportEvent>
    private let toController: AsyncInbox<HCIPacket?>

    /// Makes a link holding at most `capacity` unread packets each way.
    public init(capacity: Int = 64, description: String = "memory:controller") {
        self.capacity = max(1, capacity)
        self.description = description
        let toHost = AsyncInbox<HCITransportEvent>(capacity: capacity)
        let toController = AsyncInbox<HCIPacket?>(capacity: capacity)
        self.toHost = toHost
        self.toController = toController
        self.inbound = AsyncStream(unfolding: { await toHost.next() })
        self.outbound = AsyncStream(unfolding: { await toController.next() ?? nil })
    }

    /// The host's send: waits while the controller has ``capacity`` packets unread; fails once the link ended.
    public func send(_ packet: HCIPacket) async throws(HCITransportError) {
        guard !toController.isFinished else { throw .closed(reason: "the in-memory link ended") }
        await toController.push(packet)
    }

    /// The host closes the link: the controller's ``outbound`` ends and the host gets `.closed`.
    public func close() async {
        end(reason: "the transport was closed")
    }

    /// The controller sends `packet` to the host, waiting while the host has ``capacity`` packets
    /// unread; dropped once the link ended.
    public func deliver(_ packet: HCIPacket) async {
        await toHost.push(.packet(packet))
    }

    /// The controller ends the link (as a broken TCP stream would): the host reads `.closed(reason)`.
    public func end(reason: String) {
        toHost.finish(with: .closed(reason: reason))
        toController.finish(with: nil)
    }

    /// Whether the link ended.
    public var isEnded: Bool { toHost.isFinished }
}
