import McuMgrConnection
import SMP
import SMPSimulator

extension ConnectionFactory {
    /// The transports `mcumgr` connects with: the library's ``standard`` ones and the built-in
    /// simulator (`--sim`, no connection named, `sim` in a profile or a devices file).
    static var mcumgr: ConnectionFactory {
        var factory = ConnectionFactory.standard
        factory.register(.simulator, connector: connectBuiltInSimulator)
        return factory
    }

    /// A fresh built-in simulated device, reached in memory, with `--mtu` as its packet size.
    @Sendable static func connectBuiltInSimulator(_ spec: ConnectionSpec, _ options: ConnectionOptions) async throws(ConnectionError) -> any SMPTransport {
        guard case .simulator = spec else { throw .unsupported(spec) }
        let transport = await BuiltInSimulator.makeTransport(maximumPacketSize: options.maximumPacketSize)
        try await open(transport, spec: spec)
        return transport
    }
}
