import SMPSerial

// One set of rules for a serial connection's numbers, whichever way they were given: `--serial`
// with `--baud`/`--line-length`, a `serial` connection string or profile, or `--hci serial:PATH@BAUD`.
// A value the rules refuse is a ConnectionStringError (a usage error, exit status 2), never a
// failure to open the port (3).

extension SerialConnectionParameters {
    /// The console line lengths a connection takes, marker and newline included.
    public static let lineLengths = 16...8_192
    /// The packet sizes (`mtu`) a connection takes; console framing tops out a little lower
    /// (`SerialConnectionOptions.largestPacket(for:)`).
    public static let packetSizes = 32...65_535

    /// The baud rates a serial port can be set to: termios' standard rates.
    public static var baudRates: [Int] { SerialPort.standardBaudRates.keys.sorted() }
    /// The lowest to the highest of ``baudRates``.
    public static var baudRateRange: ClosedRange<Int> { baudRates.first!...baudRates.last! }

    /// Checks the device path, baud rate, line length and packet size against the rules above.
    public func validate() throws(ConnectionStringError) {
        guard !device.isEmpty else { throw .missingSerialDevice }
        if let baudRate { try Self.validate(baudRate: baudRate, key: "baud", rates: Self.baudRates) }
        if let lineLength, !Self.lineLengths.contains(lineLength) {
            throw .invalidValue(key: "line_length", value: "\(lineLength)", expected: "a number from \(Self.lineLengths.lowerBound) to \(Self.lineLengths.upperBound)")
        }
        if let maximumPacketSize {
            let largest = min(Self.packetSizes.upperBound, SerialConnectionOptions.largestPacket(for: raw ? .raw : .console))
            guard (Self.packetSizes.lowerBound...largest).contains(maximumPacketSize) else {
                throw .invalidValue(key: "mtu", value: "\(maximumPacketSize)", expected: "a number from \(Self.packetSizes.lowerBound) to \(largest)")
            }
        }
    }

    /// Refuses a baud rate that is not one of `rates` (named `key` in the message).
    static func validate(baudRate: Int, key: String, rates: [Int]) throws(ConnectionStringError) {
        guard rates.contains(baudRate) else {
            let common = [115_200, 1_000_000].filter(rates.contains).map(String.init).joined(separator: " or ")
            throw .invalidValue(
                key: key, value: "\(baudRate)", expected: "a standard baud rate such as \(common) (one of \(rates.map(String.init).joined(separator: ", ")))")
        }
    }
}
