import McuMgrConnection
import SMPUDP

extension FleetDeviceList {
    /// The most devices a UDP range may name.
    public static let maximumRangeSize = 65_536

    /// The devices of a UDP range: consecutive IPv4 addresses on one port,
    /// `127.0.0.2-127.0.0.65` (port 1337) or `127.0.0.2-127.0.0.65:1400`, or consecutive ports
    /// of one host, `127.0.0.1:2000-2031` (as `mcumgr-sim --devices N --consecutive-ports` serves them).
    public static func udpRange(_ text: String) throws(FleetDeviceListError) -> [FleetDevice] {
        func invalid(_ reason: String) -> FleetDeviceListError { .invalidRange(text, reason: reason) }
        guard let dash = text.lastIndex(of: "-") else { throw invalid("no '-' between the first and the last") }
        let left = String(text[..<dash])
        let right = String(text[text.index(after: dash)...])
        var endpoints: [UDPEndpoint] = []
        if !right.isEmpty, right.allSatisfy(\.isNumber) {
            // HOST:FIRSTPORT-LASTPORT
            guard let first = UDPEndpoint(device: left), left.contains(":") else { throw invalid("'\(left)' is not HOST:PORT") }
            guard let last = Int(right), (1...65_535).contains(last) else { throw invalid("'\(right)' is not a port") }
            guard last >= first.port else { throw invalid("the last port is below the first") }
            guard last - first.port < maximumRangeSize else { throw invalid("more than \(maximumRangeSize) devices") }
            endpoints = (first.port...last).map { UDPEndpoint(host: first.host, port: $0) }
        } else {
            // FIRST-LAST[:PORT], IPv4
            var lastText = right
            var port = UDPTransport.defaultPort
            if let colon = right.firstIndex(of: ":") {
                lastText = String(right[..<colon])
                guard let p = Int(right[right.index(after: colon)...]), (1...65_535).contains(p) else {
                    throw invalid("'\(right[right.index(after: colon)...])' is not a port")
                }
                port = p
            }
            guard let first = IPv4Address(left) else { throw invalid("'\(left)' is not an IPv4 address") }
            guard let last = IPv4Address(lastText) else { throw invalid("'\(lastText)' is not an IPv4 address") }
            guard last >= first else { throw invalid("the last address is below the first") }
            guard last.value - first.value < UInt32(maximumRangeSize) else { throw invalid("more than \(maximumRangeSize) devices") }
            endpoints = (first.value...last.value).map { UDPEndpoint(host: IPv4Address(value: $0).description, port: port) }
        }
        return FleetDevice.numbered(endpoints.map { FleetDevice(.udp($0)) })
    }
}
