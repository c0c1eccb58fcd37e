import Logging
import McuMgr
import McuMgrConnection
import McuMgrTools
import SMP

extension GlobalOptions {
    /// The connection the options name, and whether they named one (without, the built-in simulator answers).
    func connection() throws -> (spec: ConnectionSpec, named: Bool) {
        if let udp { return (try ConnectionSpec(udpOption: udp), true) }
        if let serial {
            let parameters = SerialConnectionParameters(device: serial, baudRate: baud, lineLength: lineLength, raw: raw)
            return (.serial(parameters), true)
        }
        let controller = try hci.map { text throws(ConnectionStringError) in try ConnectionSpec.hciController(option: text) }
        let stacked: (String, BLEStack?)? = ble.map { ($0, nil) } ?? bluez.map { ($0, .dbus) } ?? bleSocket.map { ($0, .socket) }
        if case let (peer, stack)? = stacked {
            var spec = try ConnectionSpec(bleOption: peer, stack: stack)
            if case .ble(var parameters) = spec {
                parameters.controller = controller
                parameters.addressType = bleType
                parameters.adapter = bleAdapter
                parameters.security = bleSecurity
                spec = .ble(parameters)
            }
            return (spec, true)
        }
        if bleScan {
            let parameters = BLEConnectionParameters(peer: .scan, adapter: bleAdapter, security: bleSecurity, controller: controller)
            return (.ble(parameters), true)
        }
        if sim { return (.simulator, true) }
        if connType != nil || connString != nil {
            return (try ConnectionSpec(type: connType ?? "udp", connString: connString), true)
        }
        if let profile { return (try ProfileStore().profile(named: profile).spec(), true) }
        return (.simulator, false)
    }

    /// The packet size, session timing and logger the options ask for.
    var connectionOptions: ConnectionOptions {
        let session = session
        return ConnectionOptions(
            maximumPacketSize: session.mtu,
            clientConfiguration: SMPClient.Configuration(timeout: session.timeout, retries: session.retries),
            logger: Logger(label: "smp"), bluezAcquiresDescriptors: !bluezNoAcquire)
    }

    /// Connects, runs `body` with a session to the device, and closes the session.
    func withClient<T>(_ body: (SMPClient) async throws -> T) async throws -> T {
        let (spec, named) = try connection()
        if spec == .simulator {
            Console.err(named
                ? "mcumgr: talking to the built-in simulated device (--sim)"
                : "mcumgr: no connection named: talking to the built-in simulated device (--sim); use --udp HOST[:PORT] or -c NAME for a real one")
        }
        let options = connectionOptions
        do {
            return try await ConnectionFactory.mcumgr.withClient(spec, options: options, body)
        } catch SMPError.timeout(let group, let command, let attempts) {
            // Say how long each attempt waited: the settings may come from a profile.
            let error = SMPError.timeout(group: group, command: command, attempts: attempts)
            let waited = options.clientConfiguration.timeout
            throw CommandFailure(.transport, "\(CommandFailure(error).message); each attempt waited \(Self.secondsText(waited))")
        }
    }

    /// `1 s`, `0.25 s`: a duration as the options take it.
    static func secondsText(_ duration: Duration) -> String {
        let seconds = duration.seconds
        if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        var text = TextFormat.fixed(seconds, 3)
        while text.hasSuffix("0") { text.removeLast() }
        return text + " s"
    }
}
