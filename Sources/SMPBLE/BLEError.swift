/// Why a Bluetooth LE connection or scan could not be made, with a message a user can act on.
public enum BLEError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kernel has no Bluetooth (`EAFNOSUPPORT`: address family not supported).
    case bluetoothUnavailable(String)
    /// No such adapter, or no adapter at all (`ENODEV`).
    case noAdapter(String)
    /// The adapter is there but powered off (down).
    case adapterOff(String)
    /// bluetoothd does not answer on the system bus (it or the bus is not running).
    case bluetoothdUnavailable(String)
    /// The device requires pairing (an encrypted or authenticated link) that has not been done.
    case notAuthorized(String)
    /// The process may not use the adapter (`EPERM`, `EACCES`).
    case permissionDenied(String)
    /// The device did not answer: not advertising, out of range, or the adapter is down (`EHOSTDOWN`).
    case hostDown(String)
    /// Connecting took longer than allowed.
    case timeout(String)
    /// The device refused the connection.
    case refused(String)
    /// Another program holds what the connection needs: the device's ATT channel (it is connected
    /// through bluetoothd), or the adapter.
    case busy(String)
    /// A device address or adapter name that cannot be parsed.
    case invalidAddress(String)
    /// Any other operating-system error.
    case io(String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .bluetoothUnavailable(let text), .noAdapter(let text), .adapterOff(let text), .permissionDenied(let text), .hostDown(let text),
            .timeout(let text), .refused(let text), .busy(let text), .invalidAddress(let text), .io(let text),
            .bluetoothdUnavailable(let text), .notAuthorized(let text):
            return text
        }
    }
}
