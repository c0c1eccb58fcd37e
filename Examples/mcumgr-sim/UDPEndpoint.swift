/// A `HOST:PORT` to bind, parsed from `127.0.0.1:1337`, `[::1]:1337`, `::1` or `localhost`.
struct UDPEndpoint: Sendable, Equatable, CustomStringConvertible {
    var host: String
    var port: Int

    /// The port Zephyr's `smp_udp` uses.
    static let defaultPort = 1337

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses the text; nil when the port is not a number in 0–65535 or a bracket is unbalanced.
    init?(_ text: String) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty {
                port = Self.defaultPort
            } else {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()), (0...65535).contains(p) else { return nil }
                port = p
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            guard let p = Int(text[text.index(after: colon)...]), (0...65535).contains(p) else { return nil }
            port = p
        } else {
            host = text
            port = Self.defaultPort
        }
        if host.isEmpty { host = "127.0.0.1" }
    }

    /// `host:port`, with brackets around an IPv6 host.
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
