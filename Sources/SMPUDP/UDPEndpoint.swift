/// A UDP host and port as users write them: `192.0.2.1:1337`, `[::1]:1337`, `[fe80::1%eth0]`,
/// `::1` or `device.local` (the port defaults to 1337, Zephyr's SMP port).
public struct UDPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or address (an IPv6 address without brackets).
    public var host: String
    /// UDP port; 0 asks a server to bind any free port.
    public var port: Int

    /// Makes an endpoint.
    public init(host: String, port: Int = UDPTransport.defaultPort) {
        self.host = host
        self.port = port
    }

    /// Parses the text; nil when the host is empty or has spaces, a bracket is unbalanced, or the
    /// port is not a number in 0–65535.
    public init?(_ text: String) {
        var host: Substring
        var port = UDPTransport.defaultPort
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()) else { return nil }
                port = p
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            guard let p = Int(text[text.index(after: colon)...]) else { return nil }
            port = p
        } else {
            host = Substring(text)
        }
        guard !host.isEmpty, !host.contains(" "), (0...65535).contains(port) else { return nil }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with brackets around an IPv6 host.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
