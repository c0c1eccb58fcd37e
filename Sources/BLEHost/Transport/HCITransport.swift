/// A link to an HCI controller that carries whole HCI packets with H4 framing: a TCP stream to a
/// virtual controller, a UART, or the Linux HCI user channel.
///
/// One transport is one controller; ``LEHost`` is its only user. Sends are serialised in call
/// order and each packet reaches the controller whole.
public protocol HCITransport: Sendable, CustomStringConvertible {
    /// Packets from the controller in arrival order, then `.closed` once; exactly one consumer.
    var inbound: AsyncStream<HCITransportEvent> { get }
    /// Sends one packet; waits while the link cannot take it, never drops it.
    func send(_ packet: HCIPacket) async throws(HCITransportError)
    /// Closes the link; `inbound` then ends with `.closed`.
    func close() async
}

/// What an ``HCITransport`` delivers.
public enum HCITransportEvent: Sendable, Hashable {
    /// One whole packet from the controller.
    case packet(HCIPacket)
    /// The link ended (the controller went away, the stream broke, or `close()` was called).
    case closed(reason: String)
}

/// Why an HCI transport could not be opened or used, with a message a user can act on.
public enum HCITransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// This kernel has no Bluetooth (`socket(AF_BLUETOOTH)` fails with "address family not supported").
    case bluetoothUnavailable(String)
    /// The adapter is up and owned by the kernel's Bluetooth stack; the user channel needs it down.
    case adapterBusy(String)
    /// No such adapter.
    case noAdapter(String)
    /// The process may not open the controller.
    case permissionDenied(String)
    /// The controller could not be reached (TCP connect refused, serial port missing).
    case unreachable(String)
    /// A setting the transport cannot apply (e.g. a baud rate the port does not have).
    case invalidConfiguration(String)
    /// The transport is closed.
    case closed(reason: String)
    /// Any other operating-system error.
    case io(String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .bluetoothUnavailable(let text), .adapterBusy(let text), .noAdapter(let text), .permissionDenied(let text),
            .unreachable(let text), .invalidConfiguration(let text), .io(let text):
            return text
        case .closed(let reason):
            return "the HCI transport is closed: \(reason)"
        }
    }
}
