import NIOCore
import NIOPosix

/// Turns a device's host into the address its datagrams go to.
///
/// An IP literal (`192.0.2.1`, `::1`) is read at once, without a lookup. A host name
/// (`device.local`, or an IPv6 address with a zone, `fe80::1%eth0`) goes through `lookUp`, by
/// default `getaddrinfo`, which blocks — for seconds when a DNS server or mDNS does not answer. It
/// runs on SwiftNIO's thread pool, never on the caller's executor: in `mcumgr` that is the one
/// event loop that runs every session and timer of the process, all the devices of a fleet upgrade.
struct UDPHostResolver: Sendable {
    /// Looks a host name up, blocking.
    let lookUp: @Sendable (_ host: String, _ port: Int) throws -> SocketAddress

    /// `getaddrinfo`.
    static let system = UDPHostResolver { host, port in try SocketAddress.makeAddressResolvingHost(host, port: port) }

    /// The address of `host` at `port`.
    func address(of host: String, port: Int) async throws -> SocketAddress {
        if let literal = try? SocketAddress(ipAddress: host, port: port) { return literal }
        let lookUp = self.lookUp
        return try await NIOThreadPool.singleton.runIfActive { try lookUp(host, port) }
    }
}
