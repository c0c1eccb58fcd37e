import SMP
import Synchronization

/// SMP over a serial line (a UART behind a tty such as `/dev/ttyACM0`, or a pty): Zephyr's console
/// framing or raw packets, at any standard baud rate, 8N1, with optional RTS/CTS.
///
/// `send` encodes one packet into its frames and writes them all before the next packet's
/// (sends are serialised). A background task reads the line, decodes packets (skipping console
/// text and damaged frames) and delivers them as `SMPTransportEvent.received(_:)`. When the
/// device goes away (read or write fails with EIO/ENXIO, or a hangup) the transport reports
/// `SMPTransportEvent.disconnected(reason:)`; `connect()` opens the path again once it is back.
public final class SerialTransport: SMPTransport {
    /// What the line carried besides packets: console text and frames that were dropped.
    public enum ConsoleEvent: Sendable, Hashable {
        /// A line of console or log text from the device (without its line ending).
        case text(String)
        /// Bytes dropped by the decoder, and why.
        case dropped(SerialDecodingError)
    }

    /// The settings the transport opens the line with.
    public let options: SerialConnectionOptions
    /// Received packets and link changes.
    public let events: SMPTransportEvents
    /// Console text and dropped frames; keeps the newest 256 when nobody reads.
    public let console: AsyncStream<ConsoleEvent>

    private let eventSink: SMPTransportEvents.Continuation
    private let consoleSink: AsyncStream<ConsoleEvent>.Continuation
    private let encoder: SerialPacketEncoder
    private let clock: SMPClock
    private let state: Mutex<State>

    private struct State {
        var descriptor: SerialLine?
        var reader: Task<Void, Never>?
        var connecting: Task<Void, any Error>?
        /// The packet size the device's `buf_size` allows, once told.
        var devicePacketSize: Int?
        var closed = false
    }

    /// Makes a transport with `options` (checked here); the line opens on `connect()`.
    /// The reading task runs on `clock`'s executor.
    public init(options: SerialConnectionOptions, clock: SMPClock = .continuous) throws(SerialOptionsError) {
        try options.validate()
        do {
            encoder = try SerialPacketEncoder(framing: options.framing, lineLength: options.lineLength)
        } catch {
            throw .invalidValue(key: "linelength", value: "\(options.lineLength)", expected: "7 to \(ConsoleFrameEncoder.maximumLineLength)")
        }
        self.options = options
        self.clock = clock
        self.state = Mutex(State())
        (events, eventSink) = SMPTransportEvents.makeStream()
        (console, consoleSink) = AsyncStream.makeStream(of: ConsoleEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// The largest SMP packet sent: the configured packet size; else what the device's `buf_size`
    /// allows once known; else ``SerialConnectionOptions/defaultPacketSize``.
    public var maximumPacketSize: Int {
        options.packetSize ?? state.withLock { $0.devicePacketSize } ?? SerialConnectionOptions.defaultPacketSize
    }

    /// One console frame's payload (93 bytes in 127-byte lines); in raw framing the packet size.
    public var linkUnit: Int { encoder.linkUnit(packetSize: maximumPacketSize) }

    /// Learns the device's reassembly buffer (`buf_size`), or forgets it (`nil`): unless a packet
    /// size was configured, packets then grow to what it holds
    /// (``SerialConnectionOptions/packetSize(forDeviceBufferSize:framing:)``).
    public func setDeviceBufferSize(_ size: Int?) async {
        let packetSize = size.map {
            max(SMPHeader.size + 1, SerialConnectionOptions.packetSize(forDeviceBufferSize: $0, framing: options.framing))
        }
        state.withLock { $0.devicePacketSize = packetSize }
    }

    /// Opens and configures the line, unless it is open; reports `SMPTransportEvent.connected`.
    ///
    /// Throws `.unreachable` with a message naming the fix when the device is missing, not
    /// accessible (naming the group that owns it), busy, or not a tty.
    public func connect() async throws(SMPTransportError) {
        let task = try state.withLock { s throws(SMPTransportError) -> Task<Void, any Error>? in
            if s.closed { throw .closed }
            if s.descriptor != nil { return nil }
            if let pending = s.connecting { return pending }
            let task = clock.throwingTask { try self.open() }
            s.connecting = task
            return task
        }
        guard let task else { return }
        defer { state.withLock { if $0.connecting == task { $0.connecting = nil } } }
        do {
            try await task.value
        } catch let error as SMPTransportError {
            throw error
        } catch {
            throw .io("\(error)")
        }
    }

    /// Encodes one packet and writes all of its frames before any other packet's.
    public func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        let limit = maximumPacketSize
        let (descriptor, closed) = state.withLock { ($0.descriptor, $0.closed) }
        guard packet.count <= limit else { throw .packetTooLarge(size: packet.count, limit: limit) }
        if closed { throw .closed }
        guard let descriptor else { throw .notConnected }
        let bytes: [UInt8]
        do {
            bytes = try encoder.encode(packet)
        } catch {
            throw .packetTooLarge(size: packet.count, limit: ConsoleFrameEncoder.largestPacket)
        }
        switch await write(bytes, to: descriptor) {
        case .written:
            return
        case .failed(.closed), .cancelled:
            if state.withLock({ $0.closed }) { throw .closed }
            if Task.isCancelled { throw .io("the send was cancelled; part of the packet may be on the line") }
            throw .disconnected(reason: SerialPortError.hangup(path: options.path).description)
        case .failed(let error):
            await linkLost(descriptor, reason: error.description)
            throw .disconnected(reason: error.description)
        case .timedOut(let limit):
            let reason = "\(options.path) accepted no more bytes for \(limit) (hardware flow control holding, or the device stopped reading)"
            await linkLost(descriptor, reason: reason)
            throw .disconnected(reason: reason)
        }
    }

    /// Closes the line for good and finishes `events` and `console`.
    public func close() async {
        let (descriptor, reader) = state.withLock { s -> (SerialLine?, Task<Void, Never>?) in
            s.closed = true
            defer {
                s.descriptor = nil
                s.reader = nil
            }
            return (s.descriptor, s.reader)
        }
        reader?.cancel()
        await descriptor?.close()
        await reader?.value
        eventSink.finish()
        consoleSink.finish()
    }

    /// How one packet's write ended.
    private enum WriteOutcome: Sendable {
        case written
        case failed(SerialPortError)
        case timedOut(Duration)
        case cancelled
    }

    /// Writes `bytes`, giving up when they take `writeTimeout` longer than the line needs for them.
    private func write(_ bytes: [UInt8], to descriptor: SerialLine) async -> WriteOutcome {
        let limit = options.writeTimeout + options.lineTime(of: bytes.count)
        let clock = clock
        return await withTaskGroup(of: WriteOutcome.self) { group in
            group.addTask {
                do throws(SerialPortError) {
                    try await descriptor.write(bytes)
                    return .written
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                do {
                    try await clock.sleep(for: limit)
                    return .timedOut(limit)
                } catch {
                    return .cancelled
                }
            }
            let first = await group.next() ?? .cancelled
            group.cancelAll()
            return first
        }
    }

    /// Opens the device and starts reading it (run once per connect).
    private func open() throws(SMPTransportError) {
        let descriptor: SerialLine
        do {
            descriptor = try SerialPort.open(
                options.path, baudRate: options.baudRate, flowControl: options.flowControl, exclusive: options.exclusive)
        } catch {
            switch error {
            case .deviceMissing, .permissionDenied, .busy, .notATerminal, .unsupportedBaudRate:
                throw .unreachable(error.description)
            default:
                throw .io(error.description)
            }
        }
        let keep = state.withLock { s -> Bool in
            guard !s.closed, s.descriptor == nil else { return false }
            s.descriptor = descriptor
            s.reader = clock.task { await self.readLoop(descriptor) }
            return true
        }
        guard keep else {
            clock.task { await descriptor.close() }
            if state.withLock({ $0.closed }) { throw .closed }
            return
        }
        eventSink.yield(.connected)
    }

    /// Reads and decodes until the descriptor is closed or the device goes away.
    private func readLoop(_ descriptor: SerialLine) async {
        var decoder = SerialPacketDecoder(
            framing: options.framing, maximumPacketSize: SerialConnectionOptions.largestPacket(for: options.framing),
            operations: [.readResponse, .writeResponse])
        while true {
            let bytes: [UInt8]
            do {
                bytes = try await descriptor.read(maximumCount: 4096)
            } catch .closed {
                return
            } catch {
                await linkLost(descriptor, reason: error.description)
                return
            }
            decoder.append(bytes) { output in
                switch output {
                case .packet(let packet): eventSink.yield(.received(packet))
                case .text(let text): consoleSink.yield(.text(String(decoding: text, as: UTF8.self)))
                case .dropped(let error): consoleSink.yield(.dropped(error))
                }
            }
        }
    }

    /// The device went away: forget the descriptor (once), close it and report the disconnect.
    private func linkLost(_ descriptor: SerialLine, reason: String) async {
        let current = state.withLock { s -> Bool in
            guard s.descriptor === descriptor else { return false }
            s.descriptor = nil
            s.reader = nil
            return true
        }
        await descriptor.close()
        if current { eventSink.yield(.disconnected(reason: reason)) }
    }
}
