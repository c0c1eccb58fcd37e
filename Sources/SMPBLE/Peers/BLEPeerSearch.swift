/// How a `--ble` device is found, the same through BlueZ (McuMgrConnection's BlueZ connector) and
/// through our own LE host (``HCISession``): at the address given with its type, or by the
/// advertisement a scan must find (which also tells an address's type).
package enum BLEPeerSearch: Sendable {
    /// The address (six bytes, most significant first) and its type are given: no scan.
    case address([UInt8], BLEAddressType)
    /// A scan finds the device: the advertisement `matches` accepts by address and name. `what`
    /// names the device in messages; `smpServiceOnly` is false for a device known by its address,
    /// whose advertisement need not list the SMP service.
    case scan(what: String, smpServiceOnly: Bool, matches: @Sendable (_ address: [UInt8], _ name: String?) -> Bool)

    /// The search for `peer`; an address that is not one fails with ``BLEError/invalidAddress(_:)``.
    package init(_ peer: BLEPeer, addressType: BLEAddressType?) throws(BLEError) {
        switch peer {
        case .address(let text):
            guard let wanted = BluetoothDeviceAddress(text)?.bytes else { throw .invalidAddress("'\(text)' is not a device address") }
            if let addressType {
                self = .address(wanted, addressType)
            } else {
                self = .scan(what: "\(text) (give --ble-type public|random to skip the scan)", smpServiceOnly: false) { address, _ in address == wanted }
            }
        case .name(let name):
            self = .scan(what: "an SMP device named '\(name)'", smpServiceOnly: true) { _, advertised in advertised == name }
        case .scan:
            self = .scan(what: "an SMP device", smpServiceOnly: true) { _, _ in true }
        }
    }

    /// `peer` in messages: its address, `the SMP device named 'NAME'` or `the first SMP device found`.
    package static func describe(_ peer: BLEPeer) -> String {
        switch peer {
        case .address(let text): return text
        case .name(let name): return "the SMP device named '\(name)'"
        case .scan: return "the first SMP device found"
        }
    }

    /// The failure of a scan that saw no advertisement from `what` (through `via`) within `duration`.
    package static func notFound(_ what: String, within duration: Duration, via: String) -> BLEError {
        .hostDown("no advertisement from \(what) within \(duration) via \(via): is it advertising and in range?")
    }
}
