import SMP

/// How SMP packets travel on a serial line.
public enum SerialFraming: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Zephyr's console framing (`MCUMGR_TRANSPORT_UART`, shell): base64 lines with markers and CRC,
    /// which can share the UART with log and shell text.
    case console
    /// Raw binary packets (`MCUMGR_TRANSPORT_RAW_UART`): no markers, base64 or CRC; the SMP header's
    /// length finds the end. The UART carries nothing else.
    case raw

    /// The name, as in `--raw` / `framing=console`.
    public var description: String { rawValue }
}

/// Why a serial decoder dropped bytes, in either framing.
public enum SerialDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A console frame was malformed, failed its CRC or its length, or arrived out of place.
    case console(ConsoleFramingError)
    /// Raw bytes did not form a plausible SMP packet.
    case raw(SMPPacketAssemblyError)

    /// A one-line message.
    public var description: String {
        switch self {
        case .console(let error): return error.description
        case .raw(let error): return error.description
        }
    }
}

/// Splits what arrives on a serial line into SMP packets, in console or raw framing.
public struct SerialPacketDecoder: Sendable {
    /// What the bytes yielded, in stream order.
    public enum Output: Sendable, Hashable {
        /// One whole SMP packet.
        case packet([UInt8])
        /// A console line that is not a frame (console framing only).
        case text([UInt8])
        /// Bytes that were dropped, and why.
        case dropped(SerialDecodingError)
    }

    private enum Core: Sendable {
        case console(ConsoleFrameDecoder)
        case raw(SMPPacketAssembler)
    }

    /// The framing decoded.
    public let framing: SerialFraming
    private var core: Core

    /// Makes a decoder for packets of up to `maximumPacketSize` bytes; in raw framing only packets
    /// carrying one of `operations` are plausible (responses for a client, requests for a device).
    public init(
        framing: SerialFraming, maximumPacketSize: Int, operations: Set<SMPOperation>,
        maximumLineLength: Int = ConsoleFrameEncoder.maximumLineLength
    ) {
        self.framing = framing
        switch framing {
        case .console:
            core = .console(ConsoleFrameDecoder(maximumPacketSize: maximumPacketSize, maximumLineLength: maximumLineLength))
        case .raw:
            core = .raw(SMPPacketAssembler(maximumPacketSize: maximumPacketSize, operations: operations))
        }
    }

    /// Bytes held for a packet or line not yet complete.
    public var bufferedByteCount: Int {
        switch core {
        case .console(let decoder): return decoder.bufferedByteCount
        case .raw(let assembler): return assembler.bufferedByteCount
        }
    }

    /// Takes the next bytes and hands each result to `deliver`, in order.
    public mutating func append(_ bytes: some Collection<UInt8>, deliver: (Output) -> Void) {
        switch core {
        case .console(var decoder):
            decoder.append(bytes) { output in
                switch output {
                case .packet(let packet): deliver(.packet(packet))
                case .text(let text): deliver(.text(text))
                case .dropped(let error): deliver(.dropped(.console(error)))
                }
            }
            core = .console(decoder)
        case .raw(var assembler):
            assembler.append(bytes) { output in
                switch output {
                case .packet(let packet): deliver(.packet(packet))
                case .skipped(let error): deliver(.dropped(.raw(error)))
                }
            }
            core = .raw(assembler)
        }
    }

    /// Takes the next bytes and returns what they complete.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [Output] {
        var output: [Output] = []
        append(bytes) { output.append($0) }
        return output
    }

    /// Drops whatever is partial (the link went down); returns the bytes dropped.
    @discardableResult
    public mutating func reset() -> Int {
        switch core {
        case .console(var decoder):
            defer { core = .console(decoder) }
            return decoder.reset()
        case .raw(var assembler):
            defer { core = .raw(assembler) }
            return assembler.reset()
        }
    }
}

/// Puts SMP packets on a serial line, in console or raw framing.
public struct SerialPacketEncoder: Sendable, Hashable {
    /// The framing produced.
    public let framing: SerialFraming
    /// The console encoder (its line length also applies, unused, in raw framing).
    public let console: ConsoleFrameEncoder

    /// Makes an encoder; `lineLength` bounds console frames.
    public init(framing: SerialFraming, lineLength: Int = ConsoleFrameEncoder.defaultLineLength) throws(ConsoleFramingError) {
        self.framing = framing
        self.console = try ConsoleFrameEncoder(lineLength: lineLength)
    }

    /// The units one packet goes out as: console frames, or the packet itself.
    public func units(for packet: [UInt8]) throws(ConsoleFramingError) -> [[UInt8]] {
        switch framing {
        case .console: return try console.frames(for: packet)
        case .raw: return [packet]
        }
    }

    /// The bytes of one packet on the wire.
    public func encode(_ packet: [UInt8]) throws(ConsoleFramingError) -> [UInt8] {
        switch framing {
        case .console: return try console.encode(packet)
        case .raw: return packet
        }
    }

    /// Payload bytes one link unit carries: a console frame's raw bytes, or `packetSize` in raw framing.
    public func linkUnit(packetSize: Int) -> Int {
        framing == .console ? console.rawBytesPerFrame : packetSize
    }
}
