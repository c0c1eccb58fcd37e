import ArgumentParser
import BLEHost
import Logging
import McuMgrConnection
import SMP
import SMPBLE
import SMPSimulator

/// `mcumgr-sim --hci CONTROLLER`: the device as a Bluetooth LE peripheral on an HCI controller,
/// through our own LE host, for any central (BlueZ, a phone, `mcumgr --ble`, `mcumgr --hci`).
struct PeripheralOptions: ParsableArguments {
    @Option(name: .customLong("hci"), help: ArgumentHelp(
        "Serve as a Bluetooth LE peripheral on this HCI controller: user:N (adapter hciN, powered off for the kernel first), tcp:HOST:PORT (e.g. bumble's) or serial:PATH[@BAUD]. Prints 'advertising as ADDRESS (random) …'.",
        valueName: "controller"))
    var hci: String?

    @Option(name: .customLong("ble-name"), help: ArgumentHelp("The name to advertise with --hci (default: mcumgr-sim).", valueName: "name"))
    var name: String?

    @Option(name: .customLong("ble-address"), help: ArgumentHelp(
        "The random static address to advertise from with --hci, AA:BB:CC:DD:EE:FF with the two top bits set (default: a new one).",
        valueName: "address"))
    var address: String?

    @Option(name: .customLong("ble-interval"), help: ArgumentHelp(
        "With --hci: 5 s into each connection, ask the central for a connection interval of MIN to MAX milliseconds (an L2CAP connection parameter update request, as Zephyr peripherals make), e.g. 15-30.",
        valueName: "min-max"))
    var interval: String?

    @Flag(name: .customLong("ble-power-cycle"), help: ArgumentHelp(
        "With --hci: when the device drops its link (--disconnect-at, a reset), power the controller off and on as `btmgmt power off; power on` does: the link ends with 'power off' (0x15), the controller is reset, and it advertises again when the device is back (after --reconnect-delay)."))
    var powerCycle = false

    @Flag(name: .customLong("ble-require-pairing"), help: ArgumentHelp(
        "With --hci: the SMP characteristic and its CCCD take writes only on an encrypted link, as a Zephyr device built with CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN. The simulator never pairs, so every central is refused with Insufficient Authentication (0x05): a device that needs pairing."))
    var requiresPairing = false

    /// The connection parameters `--ble-interval` asks for (nil without it).
    func connectionParameters() throws -> LEConnectionParameters? {
        guard let interval else { return nil }
        let parts = interval.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
        guard parts.count == 2, let minimum = parts[0], let maximum = parts[1], 7.5 <= minimum, minimum <= maximum, maximum <= 4000 else {
            throw ValidationError("--ble-interval expects MIN-MAX in milliseconds, 7.5 to 4000, e.g. 15-30, not '\(interval)'")
        }
        return LEConnectionParameters(interval: .microseconds(Int(minimum * 1000)), .microseconds(Int(maximum * 1000)), supervisionTimeout: .seconds(4))
    }

    /// The controller `--hci` names (nil without it); a malformed one is a usage error.
    func controller() throws -> HCIController? {
        guard let hci else { return nil }
        do {
            return try ConnectionSpec.hciController(option: hci)
        } catch {
            throw ValidationError("--hci: \(error)")
        }
    }

    /// The `--ble-address`, checked to be a static random address.
    func staticAddress() throws -> LEAddress? {
        guard let address else { return nil }
        guard let parsed = LEAddress(address.uppercased(), kind: .random), parsed.bytes[0] & 0xC0 == 0xC0 else {
            throw ValidationError("--ble-address must be a static random address, AA:BB:CC:DD:EE:FF with the two top bits set (C0 to FF first), not '\(address)'")
        }
        return parsed
    }

    func validate() throws {
        if hci == nil, name != nil || address != nil || interval != nil || powerCycle || requiresPairing {
            throw ValidationError("--ble-name, --ble-address, --ble-interval, --ble-power-cycle and --ble-require-pairing go with --hci CONTROLLER")
        }
        _ = try controller()
        _ = try staticAddress()
        _ = try connectionParameters()
        if let name, name.isEmpty || name.utf8.count > 29 { throw ValidationError("--ble-name must be 1 to 29 bytes") }
    }

    /// Opens the controller and starts advertising `device`; prints where it advertises.
    func serve(_ device: SimulatedDevice, clock: SMPClock) async throws -> SimulatorHCIPeripheral? {
        guard let controller = try controller() else { return nil }
        let logger = Logger(label: "mcumgr-sim.hci")
        let transport: any HCITransport
        do {
            transport = try await controller.openTransport(logger: logger)
        } catch {
            throw PeripheralError(controller: controller, underlying: error.description)
        }
        let configuration = SimulatorHCIPeripheral.Configuration(
            name: name, address: try staticAddress(), gatt: GATTPeripheralConfiguration(requiresEncryption: requiresPairing),
            connectionParameters: try connectionParameters(), powerCyclesOnDrop: powerCycle)
        let peripheral: SimulatorHCIPeripheral
        do {
            peripheral = try await SimulatorHCIPeripheral.start(device: device, transport: transport, configuration: configuration, clock: clock, logger: logger)
        } catch {
            throw PeripheralError(controller: controller, underlying: error.description)
        }
        Console.write("advertising as \(peripheral.address) on \(controller) as '\(peripheral.name)'", to: 1)
        return peripheral
    }
}

/// The simulator could not serve as a peripheral on the controller.
struct PeripheralError: Error, CustomStringConvertible {
    let controller: HCIController
    let underlying: String

    var description: String { "cannot serve on \(controller): \(underlying)" }
}
