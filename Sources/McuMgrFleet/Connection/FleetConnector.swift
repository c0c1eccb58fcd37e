import McuMgrConnection
import SMP

/// How a fleet reaches its devices: the connection factory (its registered transports), the
/// options of every session (timing, packet size, clock, logging), and the profiles file that
/// `profile` targets name.
///
/// The options' clock is the fleet's clock: retry back-offs, health-check deadlines and every
/// session run on it, so a fleet of simulated devices runs on virtual time in tests.
public struct FleetConnector: Sendable {
    /// Turns specs into transports.
    public var factory: ConnectionFactory
    /// The options of every session.
    public var options: ConnectionOptions
    /// Where `profile` targets are looked up.
    public var profiles: ProfileStore

    /// Makes a connector; by default the standard transports (a `sim` device needs a `factory` with
    /// a simulator connector registered), default session options and the profiles file the environment names.
    public init(
        factory: ConnectionFactory = .standard, options: ConnectionOptions = ConnectionOptions(),
        profiles: ProfileStore = ProfileStore()
    ) {
        self.factory = factory
        self.options = options
        self.profiles = profiles
    }

    /// The fleet's clock (the sessions' clock).
    public var clock: SMPClock { options.clock }

    /// The spec a target names: itself, or its profile's.
    public func resolve(_ target: FleetTarget) throws(FleetFailure.Reason) -> ConnectionSpec {
        switch target {
        case .spec(let spec):
            return spec
        case .profile(let name):
            let profile: ConnectionProfile
            do {
                profile = try profiles.profile(named: name)
            } catch {
                throw .profile(error)
            }
            do {
                return try profile.spec()
            } catch {
                throw .connectionString(error)
            }
        }
    }

    /// Each device with the spec its target names, and the failure of each whose target names none
    /// (an unknown profile, a bad connection string), in fleet order.
    func resolve(_ devices: [FleetDevice]) -> (items: [FleetSlotItem], unresolved: [(FleetDevice, FleetFailure)]) {
        var items: [FleetSlotItem] = []
        var unresolved: [(FleetDevice, FleetFailure)] = []
        for device in devices {
            do {
                items.append(FleetSlotItem(device: device, spec: try resolve(device.target)))
            } catch {
                unresolved.append((device, FleetFailure(phase: .connect, reason: error, reachedDevice: false)))
            }
        }
        return (items, unresolved)
    }

    /// Opens a session to `spec`.
    public func connect(_ spec: ConnectionSpec) async throws(ConnectionError) -> DeviceConnection {
        try await factory.connect(spec, options: options)
    }
}
