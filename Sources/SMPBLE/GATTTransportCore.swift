import GATT
import Logging
import SMP
import Synchronization

/// What every transport that writes the SMP characteristic keeps besides its link (``BLETransport``
/// through an ATT bearer, ``BlueZDBusTransport`` through bluetoothd): the events it yields, its
/// clock and logger, the gates that keep connects and packets apart, and the sizes of its packets
/// and writes (the link's ATT MTU and the device's reassembly buffer).
///
/// A reassembly buffer given in the configuration wins; otherwise the session's report of the
/// device's `buf_size` sets it, when the device reassembles writes.
final class GATTTransportCore: Sendable {
    /// Whole SMP packets from the device and link changes.
    let events: SMPTransportEvents
    let clock: SMPClock
    let logger: Logger
    /// One connect at a time.
    let connectGate = AsyncGate()
    /// One packet's writes at a time: a packet's writes are never interleaved with another's.
    let sendGate = AsyncGate()

    private let eventSink: SMPTransportEvents.Continuation
    private let configuredBuffer: Int?
    private let deviceReassembles: Bool
    private let sizes: Mutex<Sizes>

    private struct Sizes {
        var mtu: Int
        var reassemblyBuffer: Int?
    }

    /// A core for a transport configured with `reassemblyBuffer` (nil: unknown) whose device
    /// reassembles writes when `deviceReassembles`; the MTU is 23 until a link says.
    init(reassemblyBuffer: Int?, deviceReassembles: Bool, clock: SMPClock, logger: Logger) {
        configuredBuffer = reassemblyBuffer
        self.deviceReassembles = deviceReassembles
        self.clock = clock
        self.logger = logger
        sizes = Mutex(Sizes(mtu: GATTClient.defaultMTU, reassemblyBuffer: reassemblyBuffer))
        (events, eventSink) = SMPTransportEvents.makeStream()
    }

    // MARK: Sizes

    /// The ATT MTU of the current (or last) link.
    var mtu: Int {
        get { sizes.withLock { $0.mtu } }
        set { sizes.withLock { $0.mtu = newValue } }
    }

    /// The device's reassembly buffer; nil sends only packets that fit one write.
    var reassemblyBuffer: Int? {
        get { sizes.withLock { $0.reassemblyBuffer } }
        set { sizes.withLock { $0.reassemblyBuffer = newValue.map { max($0, 0) } } }
    }

    /// The largest SMP packet: the reassembly buffer when larger than one write, else ATT_MTU − 3.
    var maximumPacketSize: Int {
        sizes.withLock { SMPOverGATTWrites.packetLimit(mtu: $0.mtu, reassemblyBuffer: $0.reassemblyBuffer) }
    }

    /// One write's value: ATT_MTU − 3.
    var linkUnit: Int { mtu - 3 }

    /// The session's report of the device's `buf_size`; ignored when the configuration gave a
    /// buffer or the device does not reassemble.
    func deviceReported(bufferSize: Int?) {
        guard configuredBuffer == nil, deviceReassembles else { return }
        reassemblyBuffer = bufferSize
    }

    /// The writes that carry `packet` over a link of `mtu`.
    func writes(of packet: [UInt8], mtu: Int) throws(SMPTransportError) -> [ArraySlice<UInt8>] {
        try SMPOverGATTWrites.writes(of: packet, mtu: mtu, reassemblyBuffer: reassemblyBuffer)
    }

    // MARK: Events

    /// The link is up at `mtu` (described for the log by `what`).
    func connected(mtu: Int, _ what: String) {
        self.mtu = mtu
        logger.info("\(what)")
        eventSink.yield(.connected)
    }

    /// One notification's bytes, joined by the link's `assembler` into whole packets for the session.
    func notified(_ value: [UInt8], assembler: inout SMPPacketAssembler) {
        assembler.append(value) { output in
            switch output {
            case .packet(let packet): eventSink.yield(.received(packet))
            case .skipped(let error): logger.notice("notification bytes dropped: \(error)")
            }
        }
    }

    /// The link to `what` ended: the session is told why.
    func disconnected(_ reason: String, what: String) {
        logger.info("disconnected from \(what): \(reason)")
        eventSink.yield(.disconnected(reason: reason))
    }

    /// The transport closed for good: `events` finishes.
    func finish() {
        eventSink.finish()
    }
}
