import BLEHost
import Logging

/// An HCI controller for our own LE host: `tcp:HOST:PORT`, `serial:PATH[@BAUD]` or `user:N`.
public enum HCIController: Sendable, Hashable, CustomStringConvertible {
    /// A virtual controller over TCP (e.g. bumble's), at `host` and `port`.
    case tcp(host: String, port: Int)
    /// A UART controller (e.g. Nordic's `hci_uart` firmware); `baudRate` `nil` for the transport's default.
    case serial(path: String, baudRate: Int?)
    /// The Linux HCI user channel of adapter `index` (`hci0` is 0); the adapter must be down.
    case userChannel(index: Int)

    /// The controller in its connection-string form, e.g. `tcp:127.0.0.1:9001` (an IPv6 host in brackets).
    public var description: String {
        switch self {
        case .tcp(let host, let port): return host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case .serial(let path, let baud): return "serial:\(path)" + (baud.map { "@\($0)" } ?? "")
        case .userChannel(let index): return "user:\(index)"
        }
    }
}

extension HCIController {
    /// Opens the link to the controller (the user channel binds the adapter, TCP connects, a UART
    /// is set up), for an `LEHost` as central or as peripheral.
    public func openTransport(logger: Logger = Logger(label: "hci")) async throws(BLEError) -> any HCITransport {
        do {
            switch self {
            case .tcp(let host, let port): return try await HCITransports.tcp(host: host, port: port, logger: logger)
            case .serial(let path, let baud): return try await HCITransports.serial(path: path, baudRate: baud ?? 1_000_000, logger: logger)
            case .userChannel(let index): return try await HCITransports.userChannel(index: index, logger: logger)
            }
        } catch {
            throw HCISession.bleError(.transport(error))
        }
    }
}
