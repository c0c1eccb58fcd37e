extension SerialConnectionOptions {
    /// The keys ``init(connectionString:)`` knows: Go mcumgr's `dev`, `baud`, `mtu`, and ours.
    public static let connectionStringKeys = ["dev", "baud", "mtu", "linelength", "framing", "raw", "flow", "exclusive"]

    /// Parses a Go mcumgr serial connection string, `dev=/dev/ttyACM0,baud=115200,mtu=512`, with
    /// optional `linelength=127`, `framing=console|raw` (or `raw=true`), `flow=none|rtscts` and
    /// `exclusive=true|false`; `raw` and `rtscts` alone mean true. A bare first part without `=`
    /// is taken as the device.
    public init(connectionString: String) throws(SerialOptionsError) {
        self.init(path: "")
        let parts = connectionString.split(separator: ",", omittingEmptySubsequences: true)
        for (index, rawPart) in parts.enumerated() {
            let part = rawPart.trimmingCharacters(in: " \t")
            guard let equals = part.firstIndex(of: "=") else {
                switch part.lowercased() {
                case "raw": framing = .raw
                case "rtscts": flowControl = .rtsCts
                case "exclusive": exclusive = true
                default:
                    guard index == 0, !part.isEmpty else { throw .malformed(part) }
                    path = part
                }
                continue
            }
            let key = part[..<equals].trimmingCharacters(in: " \t").lowercased()
            let value = String(part[part.index(after: equals)...]).trimmingCharacters(in: " \t")
            guard !key.isEmpty else { throw .malformed(part) }
            switch key {
            case "dev", "device", "port":
                path = value
            case "baud", "baudrate":
                baudRate = try Self.integer(key, value)
            case "mtu", "packetsize":
                packetSize = try Self.integer(key, value)
            case "linelength", "line_length", "line-length":
                lineLength = try Self.integer(key, value)
            case "framing":
                guard let parsed = SerialFraming(rawValue: value.lowercased()) else {
                    throw .invalidValue(key: key, value: value, expected: "console or raw")
                }
                framing = parsed
            case "raw":
                framing = try Self.boolean(key, value) ? .raw : .console
            case "flow", "flowcontrol":
                switch value.lowercased() {
                case "none", "off", "false", "0": flowControl = .none
                case "rtscts", "rts/cts", "hw", "hardware", "on", "true", "1": flowControl = .rtsCts
                default: throw .invalidValue(key: key, value: value, expected: "none or rtscts")
                }
            case "rtscts":
                flowControl = try Self.boolean(key, value) ? .rtsCts : .none
            case "exclusive":
                exclusive = try Self.boolean(key, value)
            default:
                throw .unknownKey(key)
            }
        }
        try validate()
    }

    private static func integer(_ key: String, _ value: String) throws(SerialOptionsError) -> Int {
        guard let number = Int(value), number > 0 else { throw .invalidValue(key: key, value: value, expected: "a positive whole number") }
        return number
    }

    private static func boolean(_ key: String, _ value: String) throws(SerialOptionsError) -> Bool {
        switch value.lowercased() {
        case "true", "yes", "on", "1", "": return true
        case "false", "no", "off", "0": return false
        default: throw .invalidValue(key: key, value: value, expected: "true or false")
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters from `characters`.
    fileprivate func trimmingCharacters(in characters: String) -> String {
        var slice = self[...]
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
