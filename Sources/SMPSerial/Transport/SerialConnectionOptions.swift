import SMP

/// Everything needed to reach a device over a serial line: the device path, the line settings,
/// the framing and the largest SMP packet to send.
public struct SerialConnectionOptions: Sendable, Hashable {
    /// 115200 baud, what Zephyr boards use unless told otherwise.
    public static let defaultBaudRate = 115_200
    /// Zephyr's `CONFIG_MCUMGR_TRANSPORT_UART_MTU` default: a packet every console-framed Zephyr
    /// build takes (it fits `MCUMGR_TRANSPORT_NETBUF_SIZE` 384 with the 4 bytes of length and CRC,
    /// and Zephyr sizes its two 128-byte line buffers for it).
    public static let defaultPacketSize = 256

    /// The tty or pty, e.g. `/dev/ttyACM0`.
    public var path: String
    /// The line's baud rate (a standard rate; ignored by a pty).
    public var baudRate: Int
    /// The longest console frame, marker and newline included (127 unless the device was built with more).
    public var lineLength: Int
    /// Console framing (base64 lines) or raw packets.
    public var framing: SerialFraming
    /// Hardware flow control.
    public var flowControl: SerialFlowControl
    /// The largest SMP packet (header + payload) sent, fixed; `nil` follows the device: its
    /// `buf_size` once known (less the 4 bytes of length and CRC in console framing), until then
    /// ``defaultPacketSize``. A console packet spans several frames.
    public var packetSize: Int?
    /// Open the device exclusively (`TIOCEXCL`), so that no other program reads our responses.
    public var exclusive: Bool
    /// How long a packet's write may stall beyond its time on the line (flow control holding, a
    /// device that stopped reading) before the link counts as lost.
    public var writeTimeout: Duration

    /// Makes options for `path`; by default 115200 baud, console framing in 127-byte lines, no flow
    /// control, packets sized by the device, exclusive, writes stalling at most 5 s.
    public init(
        path: String, baudRate: Int = SerialConnectionOptions.defaultBaudRate,
        lineLength: Int = ConsoleFrameEncoder.defaultLineLength, framing: SerialFraming = .console,
        flowControl: SerialFlowControl = .none, packetSize: Int? = nil,
        exclusive: Bool = true, writeTimeout: Duration = .seconds(5)
    ) {
        self.path = path
        self.baudRate = baudRate
        self.lineLength = lineLength
        self.framing = framing
        self.flowControl = flowControl
        self.packetSize = packetSize
        self.exclusive = exclusive
        self.writeTimeout = writeTimeout
    }

    /// The largest packet a framing can carry: console packets have a 16-bit length that counts the CRC.
    public static func largestPacket(for framing: SerialFraming) -> Int {
        framing == .console ? ConsoleFrameEncoder.largestPacket : SMPPacketAssembler.largestPacket
    }

    /// The packet size for a device reporting `bufferSize` (`buf_size`): in console framing the
    /// device decodes length, packet and CRC into that buffer, so 4 bytes less; raw packets fill it.
    public static func packetSize(forDeviceBufferSize bufferSize: Int, framing: SerialFraming) -> Int {
        min(framing == .console ? bufferSize - 4 : bufferSize, largestPacket(for: framing))
    }

    /// How long `bytes` bytes take on the line at the baud rate (8N1: 10 bits a byte).
    public func lineTime(of bytes: Int) -> Duration {
        .nanoseconds(Int64(bytes) * 10_000_000_000 / Int64(max(baudRate, 1)))
    }

    /// Checks that the settings can work: a path, a standard baud rate, a usable line length and packet size.
    public func validate() throws(SerialOptionsError) {
        guard !path.isEmpty else { throw .missingDevice }
        guard SerialPort.standardBaudRates[baudRate] != nil else { throw .invalidValue(key: "baud", value: "\(baudRate)", expected: "a standard baud rate such as 115200") }
        guard (7...ConsoleFrameEncoder.maximumLineLength).contains(lineLength) else {
            throw .invalidValue(key: "linelength", value: "\(lineLength)", expected: "7 to \(ConsoleFrameEncoder.maximumLineLength)")
        }
        let largest = Self.largestPacket(for: framing)
        if let packetSize, !(SMPHeader.size + 1...largest).contains(packetSize) {
            throw .invalidValue(key: "mtu", value: "\(packetSize)", expected: "\(SMPHeader.size + 1) to \(largest) bytes")
        }
        guard writeTimeout > .zero else { throw .invalidValue(key: "writetimeout", value: "\(writeTimeout)", expected: "a positive duration") }
    }
}

/// Why serial connection options were refused.
public enum SerialOptionsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No device path was given (`dev=`).
    case missingDevice
    /// A connection-string key that is not known.
    case unknownKey(String)
    /// A `key=value` pair without `=`, or with an empty key.
    case malformed(String)
    /// A value out of range or of the wrong kind.
    case invalidValue(key: String, value: String, expected: String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .missingDevice:
            return "no serial device given: use dev=/dev/ttyACM0"
        case .unknownKey(let key):
            return "unknown serial option '\(key)'"
        case .malformed(let part):
            return "'\(part)' is not key=value"
        case .invalidValue(let key, let value, let expected):
            return "\(key)=\(value) is not valid: expected \(expected)"
        }
    }
}
