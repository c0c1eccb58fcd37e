import Glibc
import Logging
import SMP
import SMPSerial
import Synchronization

/// Serves a ``SimulatedDevice`` over a serial line as Zephyr's UART transports do: over a new
/// pseudo-terminal (clients open ``path``, e.g. `/dev/pts/5`) or over an existing tty.
///
/// Console framing (`MCUMGR_TRANSPORT_UART`) or raw packets (`MCUMGR_TRANSPORT_RAW_UART`); with
/// console noise, Zephyr-style log lines appear between packets and between the frames of one
/// packet. A baud-rate model limits each direction to `baud / 10` bytes a second, timed on the
/// options' clock. As on a device, a packet whose length, packet and CRC do not fit `buf_size` is
/// dropped, and damaged frames are skipped.
public final class SimulatorSerialServer: Sendable {
    /// How the line behaves.
    public struct Options: Sendable {
        /// Console framing or raw packets.
        public var framing: SerialFraming
        /// The longest console frame the device sends, marker and newline included.
        public var lineLength: Int
        /// The modelled baud rate (bytes/s = baud / 10 each way); nil for as fast as the pty goes.
        public var baudRate: Int?
        /// Mix Zephyr-style log lines into what the device sends (console framing only).
        public var consoleNoise: Bool
        /// Seed of the noise's randomness.
        public var noiseSeed: UInt64
        /// The clock that times the baud-rate model and runs the serving tasks.
        public var clock: SMPClock

        /// Makes options; by default console framing in 127-byte lines, no baud limit, no noise.
        public init(
            framing: SerialFraming = .console, lineLength: Int = ConsoleFrameEncoder.defaultLineLength, baudRate: Int? = nil,
            consoleNoise: Bool = false, noiseSeed: UInt64 = 1, clock: SMPClock = .continuous
        ) {
            self.framing = framing
            self.lineLength = lineLength
            self.baudRate = baudRate
            self.consoleNoise = consoleNoise
            self.noiseSeed = noiseSeed
            self.clock = clock
        }
    }

    /// The path a client opens: the pty's slave, or the tty given.
    public let path: String
    /// The transport id the device knows this line by.
    public let transport: TransportID
    /// The options in force.
    public let options: Options
    private let descriptor: SerialLine
    private let heldSlave: Int32?
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private let reader: Task<Void, Never>
    private let writer: Task<Void, Never>
    private let closed = Mutex(false)

    private init(
        path: String, transport: TransportID, options: Options, descriptor: SerialLine, heldSlave: Int32?,
        outbox: AsyncStream<[UInt8]>.Continuation, reader: Task<Void, Never>, writer: Task<Void, Never>
    ) {
        self.path = path
        self.transport = transport
        self.options = options
        self.descriptor = descriptor
        self.heldSlave = heldSlave
        self.outbox = outbox
        self.reader = reader
        self.writer = writer
    }

    /// Starts serving `device`: over a new pty when `path` is nil, else over the tty at `path`
    /// (opened in raw mode at `options.baudRate`, or 115200).
    public static func start(device: SimulatedDevice, path: String? = nil, options: Options = Options()) async throws -> SimulatorSerialServer {
        let encoder = try SerialPacketEncoder(framing: options.framing, lineLength: options.lineLength)
        let descriptor: SerialLine
        let clientPath: String
        let heldSlave: Int32?
        if let path {
            descriptor = try SerialPort.open(path, baudRate: options.baudRate ?? SerialConnectionOptions.defaultBaudRate)
            clientPath = path
            heldSlave = nil
        } else {
            let pty = try PseudoTerminal.open()
            descriptor = try SerialLine(taking: pty.master, path: pty.slavePath)
            clientPath = pty.slavePath
            heldSlave = pty.heldSlave
        }
        let id = await device.registerTransport(name: "serial \(clientPath)")
        let (responses, outbox) = AsyncStream.makeStream(of: [UInt8].self)
        let clock = options.clock
        let bufferSize = device.configuration.bufferSize
        let logger = Logger(label: "mcumgr-sim.serial")
        let reader = clock.task {
            await serveRequests(
                device: device, transport: id, descriptor: descriptor, options: options, bufferSize: bufferSize,
                outbox: outbox, logger: logger)
        }
        let writer = clock.task {
            await sendResponses(responses, descriptor: descriptor, encoder: encoder, options: options)
        }
        return SimulatorSerialServer(
            path: clientPath, transport: id, options: options, descriptor: descriptor, heldSlave: heldSlave,
            outbox: outbox, reader: reader, writer: writer)
    }

    /// Stops serving and closes the line (a pty disappears: its clients see a hangup).
    public func close() async {
        let first = closed.withLock { wasClosed in
            defer { wasClosed = true }
            return !wasClosed
        }
        guard first else {
            await reader.value
            return
        }
        reader.cancel()
        writer.cancel()
        outbox.finish()
        await descriptor.close()
        if let heldSlave { Glibc.close(heldSlave) }
        await reader.value
        await writer.value
    }

    /// Waits until serving stopped.
    public func wait() async {
        await reader.value
    }

    /// Reads the line at the modelled rate, decodes requests and hands them to the device.
    private static func serveRequests(
        device: SimulatedDevice, transport: TransportID, descriptor: SerialLine, options: Options, bufferSize: Int,
        outbox: AsyncStream<[UInt8]>.Continuation, logger: Logger
    ) async {
        // Zephyr decodes length, packet and CRC into one buf_size net_buf; raw packets fill it.
        let limit = SerialConnectionOptions.packetSize(forDeviceBufferSize: bufferSize, framing: options.framing)
        var decoder = SerialPacketDecoder(framing: options.framing, maximumPacketSize: limit, operations: [.read, .write])
        var pacer = SerialLinePacer(baudRate: options.baudRate, clock: options.clock)
        let reply: ResponseSink = { response in outbox.yield(response) }
        // Bytes the line held when the last ones were read: they follow those on the wire.
        var queuedBehind = 0
        while !Task.isCancelled {
            let bytes: [UInt8]
            do {
                bytes = try await descriptor.read(maximumCount: pacer.chunkSize)
            } catch {
                if case .closed = error { return }
                logger.notice("serial line \(descriptor.path): \(error)")
                return
            }
            let continuing = queuedBehind > 0
            queuedBehind = descriptor.bytesWaiting()
            await pacer.pass(bytes.count, continuing: continuing)
            var packets: [[UInt8]] = []
            decoder.append(bytes) { output in
                switch output {
                case .packet(let packet): packets.append(packet)
                case .text: break
                case .dropped(let error): logger.debug("serial line \(descriptor.path): \(error)")
                }
            }
            for packet in packets {
                await device.receive(packet, from: transport, reply: reply)
            }
        }
    }

    /// Writes each response's frames (with noise when asked) at the modelled rate, one packet after another.
    private static func sendResponses(
        _ responses: AsyncStream<[UInt8]>, descriptor: SerialLine, encoder: SerialPacketEncoder, options: Options
    ) async {
        var pacer = SerialLinePacer(baudRate: options.baudRate, clock: options.clock)
        var noise = options.consoleNoise && options.framing == .console
            ? ConsoleNoise(seed: options.noiseSeed, origin: options.clock.now) : nil
        // Everything the device sends for one response leaves back to back, as from a UART's
        // transmit buffer; the next response starts when it is ready.
        var streaming = false
        func put(_ bytes: [UInt8]) async throws(SerialPortError) {
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + pacer.chunkSize)
                await pacer.pass(end - offset, continuing: streaming)
                streaming = true
                try await descriptor.write(Array(bytes[offset..<end]))
                offset = end
            }
        }
        var sent = 0
        do {
            for await response in responses {
                guard let units = try? encoder.units(for: response) else { continue }
                streaming = false
                // A log line before the first response, then before about half of them.
                if sent == 0 || noise?.chance(50) == true, let line = noise?.line(at: options.clock.now) { try await put(line) }
                sent += 1
                for (index, unit) in units.enumerated() {
                    if index > 0, noise?.chance(10) == true, let line = noise?.line(at: options.clock.now) { try await put(line) }
                    try await put(unit)
                }
                if noise?.chance(10) == true, let line = noise?.line(at: options.clock.now) { try await put(line) }
            }
        } catch {
            // The line is closed or gone; responses from now on have nowhere to go.
        }
    }
}
