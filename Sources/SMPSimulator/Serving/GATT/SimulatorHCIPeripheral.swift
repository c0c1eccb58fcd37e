import BLEHost
import GATT
import Logging
import SMP
import Synchronization

/// Serves a ``SimulatedDevice`` as a Bluetooth LE peripheral on an HCI controller (a real adapter
/// through the Linux user channel, a UART controller, a virtual one over TCP), through our own LE
/// host: it advertises the SMP service and a name, accepts one central at a time, and serves GATT
/// on the connection's ATT channel with a ``SimulatorGATTPeripheral``.
///
/// Between connections it advertises again, except while the device refuses connections (it
/// reboots after a reset, or `--disconnect-at` took its link down): then it stays silent until
/// the device is back, as a device that is off does (and, with ``Configuration/powerCyclesOnDrop``,
/// with its controller reset as a powered-off one is). Like a Zephyr peripheral, it can ask each
/// central for other connection parameters a few seconds into the connection.
public final class SimulatorHCIPeripheral: Sendable {
    /// How the peripheral presents itself.
    public struct Configuration: Sendable, Hashable {
        /// The name it advertises (and its GAP device name is the device's node name); nil uses the node name.
        public var name: String?
        /// Its random static address; nil makes one.
        public var address: LEAddress?
        /// How GATT is served on each connection.
        public var gatt: GATTPeripheralConfiguration
        /// The connection parameters to ask each central for, ``parameterRequestDelay`` after it
        /// connected (as Zephyr's `CONFIG_BT_GAP_AUTO_UPDATE_CONN_PARAMS` does); nil asks for none.
        public var connectionParameters: LEConnectionParameters?
        /// How long after a connection the parameters are asked for (Zephyr: 5 s).
        public var parameterRequestDelay: Duration
        /// Whether the device's own link drops (a `--disconnect-at` fault, a reboot) power the
        /// controller off and on, as `btmgmt power off` / `power on` does: the link ends with
        /// "remote device terminated connection due to power off" (0x15), the controller is
        /// reset, and it advertises again (same address) once the device is back. Otherwise the
        /// link ends with "remote user terminated" and the controller keeps its state.
        public var powerCyclesOnDrop: Bool

        /// Makes a configuration.
        public init(
            name: String? = nil, address: LEAddress? = nil, gatt: GATTPeripheralConfiguration = GATTPeripheralConfiguration(),
            connectionParameters: LEConnectionParameters? = nil, parameterRequestDelay: Duration = .seconds(5),
            powerCyclesOnDrop: Bool = false
        ) {
            self.name = name
            self.address = address
            self.gatt = gatt
            self.connectionParameters = connectionParameters
            self.parameterRequestDelay = parameterRequestDelay
            self.powerCyclesOnDrop = powerCyclesOnDrop
        }
    }

    /// The SMP service UUID advertised.
    public static let serviceUUID = SMPGATTDatabase.serviceUUID

    /// The LE host on the controller.
    public let host: LEHost
    /// The GATT server of the device.
    public let gatt: SimulatorGATTPeripheral
    /// What it advertises.
    public let advertisement: LEAdvertisement
    /// The name it advertises.
    public let name: String
    private let clock: SMPClock
    private let logger: Logger
    private let serving = Mutex<Task<Void, Never>?>(nil)

    private let configuration: Configuration

    private init(host: LEHost, gatt: SimulatorGATTPeripheral, name: String, configuration: Configuration, clock: SMPClock, logger: Logger) {
        self.host = host
        self.gatt = gatt
        self.name = name
        self.configuration = configuration
        self.advertisement = LEAdvertisement(services: [Self.serviceUUID], name: name)
        self.clock = clock
        self.logger = logger
    }

    /// Starts the LE host on `transport` (resetting the controller) and advertises `device`.
    /// Throws when the controller cannot be set up; the transport is closed then.
    public static func start(
        device: SimulatedDevice, transport: any HCITransport, configuration: Configuration = Configuration(),
        clock: SMPClock = .continuous, logger: Logger = Logger(label: "smp-simulator.hci")
    ) async throws(LEHostError) -> SimulatorHCIPeripheral {
        let host = LEHost(
            transport: transport, configuration: LEHost.Configuration(address: configuration.address),
            clock: HostClock(clock, taskExecutor: clock.taskExecutor), logger: logger)
        do {
            try await host.start()
        } catch {
            await host.close()
            throw error
        }
        let name = configuration.name ?? device.configuration.nodeName
        // The name it advertises is the one its GATT server gives (bluetoothd shows that one once connected).
        var gattConfiguration = configuration.gatt
        if gattConfiguration.deviceName == nil { gattConfiguration.deviceName = name }
        let gatt = await SimulatorGATTPeripheral.start(device: device, configuration: gattConfiguration, clock: clock, logger: logger)
        let peripheral = SimulatorHCIPeripheral(host: host, gatt: gatt, name: name, configuration: configuration, clock: clock, logger: logger)
        let task = clock.task { await peripheral.serve() }
        peripheral.serving.withLock { $0 = task }
        return peripheral
    }

    /// The address it advertises from (random static).
    public var address: LEAddress { host.address }

    /// Advertises, serves one connection until it ends, and again, until closed.
    private func serve() async {
        while !Task.isCancelled, !host.isClosed {
            if let until = gatt.refusedUntil {
                logger.info("not advertising until the device is back (\(until - clock.now))")
                do { try await clock.sleep(until: until) } catch { return }
                continue
            }
            let connection: LEConnection
            do {
                connection = try await host.accept(advertising: advertisement)
            } catch {
                if case .cancelled = error { return }
                if host.isClosed { return }
                logger.error("cannot advertise: \(error); trying again in a second")
                do { try await clock.sleep(for: .seconds(1)) } catch { return }
                continue
            }
            logger.info("central \(connection.peer) connected")
            let bearer = connection.attBearer(disconnectReason: configuration.powerCyclesOnDrop ? .remotePowerOff : .remoteUserTerminated)
            do {
                try await gatt.accept(bearer)
            } catch {
                logger.notice("connection from \(connection.peer) refused: \(error)")
                await connection.disconnect()
                continue
            }
            let parameterRequest = requestParameters(on: connection)
            await connection.waitUntilEnded()
            parameterRequest?.cancel()
            logger.info("central \(connection.peer) disconnected: \(connection.current.endReason ?? "")")
            if configuration.powerCyclesOnDrop, gatt.refusedUntil != nil { await powerCycleController() }
        }
    }

    /// The device dropped its link: the controller goes off (reset: no advertising, no state) and
    /// comes back on at once; ``serve()`` advertises again when the device is back.
    private func powerCycleController() async {
        logger.info("controller powered off until the device is back")
        do {
            try await host.resetController()
        } catch {
            logger.error("powering the controller on again failed: \(error)")
        }
    }

    /// Asks the central for the configured connection parameters, after the configured delay.
    private func requestParameters(on connection: LEConnection) -> Task<Void, Never>? {
        guard let parameters = configuration.connectionParameters else { return nil }
        let delay = configuration.parameterRequestDelay
        return clock.task { [clock, logger] in
            do { try await clock.sleep(for: delay) } catch { return }
            guard !connection.isEnded else { return }
            do {
                _ = try await connection.requestParameters(parameters)
            } catch {
                logger.notice("asking \(connection.peer) for connection parameters failed: \(error)")
            }
        }
    }

    /// Stops advertising, drops the connection and closes the controller.
    public func close() async {
        let task = serving.withLock { $0 }
        task?.cancel()
        await gatt.close()
        await host.close()
        await task?.value
    }
}
