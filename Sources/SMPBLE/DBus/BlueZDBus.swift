import Glibc
import Logging
import SMP

/// BlueZ's D-Bus API as the SMP transport uses it: adapters, discovery, devices, the SMP
/// characteristic and its acquired descriptors. Every call goes through libdbus (``DBusConnection``).
struct BlueZDBus: Sendable {
    static let service = "org.bluez"
    static let adapterInterface = "org.bluez.Adapter1"
    static let deviceInterface = "org.bluez.Device1"
    static let characteristicInterface = "org.bluez.GattCharacteristic1"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"

    /// The SMP service and characteristic as BlueZ writes UUIDs (lower case).
    static let serviceUUID = "8d53dc1d-1db7-4cd3-868b-8a527460aa84"
    static let characteristicUUID = "da2e7828-fbce-4e01-ae9e-261174997c48"

    /// Interfaces and their properties by object path (`GetManagedObjects`).
    typealias Objects = [String: [String: [String: DBusValue]]]

    let bus: DBusConnection

    /// Connects to the system bus and checks that bluetoothd answers on it.
    static func open() async throws(BLEError) -> BlueZDBus {
        let bus: DBusConnection
        do {
            bus = try await DBusConnection.system()
        } catch {
            throw .bluetoothdUnavailable(
                "the D-Bus system bus does not answer (\(error)): bluetoothd is reached through it; start dbus and bluetoothd, or use --ble-socket")
        }
        let client = BlueZDBus(bus: bus)
        do {
            let owned = try await bus.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(service)], timeout: .seconds(5))
            guard owned.first?.boolValue == true else {
                await bus.close()
                throw BLEError.bluetoothdUnavailable(
                    "bluetoothd is not running: nothing owns org.bluez on the system bus (start it with `systemctl start bluetooth`, or use --ble-socket)")
            }
        } catch let error as DBusCallError {
            await bus.close()
            throw client.translate(error, while: "asking the system bus for bluetoothd")
        } catch {
            throw error as? BLEError ?? .io("\(error)")
        }
        return client
    }

    /// Whether bluetoothd answers on the system bus (its name has an owner); false when the bus itself does not answer.
    static func isRunning() async -> Bool {
        guard let client = try? await open() else { return false }
        await client.bus.close()
        return true
    }

    /// Every object BlueZ manages, with its interfaces' properties.
    func objects() async throws(BLEError) -> Objects {
        let reply = try await call("/", Self.objectManagerInterface, "GetManagedObjects", while: "listing BlueZ's objects")
        var objects: Objects = [:]
        guard let entries = reply.first?.dictionaryValue else { return objects }
        for (path, interfaces) in entries {
            var byInterface: [String: [String: DBusValue]] = [:]
            for (name, properties) in interfaces.dictionaryValue ?? [:] {
                byInterface[name] = properties.dictionaryValue ?? [:]
            }
            objects[path] = byInterface
        }
        return objects
    }

    /// Calls a BlueZ method, turning its error into a ``BLEError`` with what was being done.
    @discardableResult
    func call(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25),
        while doing: String
    ) async throws(BLEError) -> [DBusValue] {
        do {
            return try await bus.call(Self.service, path, interface, member, arguments, timeout: timeout)
        } catch {
            throw translate(error, while: doing)
        }
    }

    /// One property of an object.
    func property(_ path: String, _ interface: String, _ name: String, while doing: String) async throws(BLEError) -> DBusValue? {
        try await call(path, Self.propertiesInterface, "Get", [.string(interface), .string(name)], timeout: .seconds(5), while: doing).first
    }

    // MARK: Adapters

    /// The adapter's object path: `hciN` by name, by address, or the first one (sorted by path);
    /// it must be powered.
    static func adapter(_ name: String?, in objects: Objects) throws(BLEError) -> String {
        let adapters = objects.filter { $0.value[Self.adapterInterface] != nil }.sorted { $0.key < $1.key }
        guard !adapters.isEmpty else {
            throw .noAdapter("no Bluetooth adapter: bluetoothd manages none (list them with `bluetoothctl list`)")
        }
        let chosen: (key: String, value: [String: [String: DBusValue]])
        if let name {
            let wanted = name.uppercased()
            guard let match = adapters.first(where: {
                $0.key.hasSuffix("/" + name) || $0.value[Self.adapterInterface]?["Address"]?.stringValue?.uppercased() == wanted
            }) else {
                let known = adapters.map { String($0.key.split(separator: "/").last ?? "") }.joined(separator: ", ")
                throw .noAdapter("no Bluetooth adapter \(name) in bluetoothd (it has \(known); list them with `bluetoothctl list`)")
            }
            chosen = match
        } else {
            chosen = adapters[0]
        }
        let adapterName = String(chosen.key.split(separator: "/").last ?? "")
        if chosen.value[Self.adapterInterface]?["Powered"]?.boolValue != true {
            throw .adapterOff(
                "the Bluetooth adapter \(adapterName) is powered off: power it on with `bluetoothctl power on` (or `btmgmt --index \(adapterName.dropFirst(3)) power on`)")
        }
        return chosen.key
    }

    // MARK: Errors

    /// A D-Bus error in words a user can act on.
    func translate(_ error: DBusCallError, while doing: String) -> BLEError {
        Self.translate(error, while: doing)
    }

    static func translate(_ error: DBusCallError, while doing: String) -> BLEError {
        let detail = error.message.isEmpty ? error.name : error.message
        switch error.name {
        case "org.bluez.Error.NotPermitted" where error.message.lowercased().contains("acquired"):
            // bluetoothd's answer while another client (or a subscription it never released) holds them.
            return .busy(
                "bluetoothd holds the SMP characteristic's notifications for another client (\(doing): \(detail)): close the other program, or restart bluetoothd (`systemctl restart bluetooth`)")
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            return .bluetoothdUnavailable("bluetoothd is not running (\(doing): \(detail)); start it with `systemctl start bluetooth`, or use --ble-socket")
        case "org.freedesktop.DBus.Error.AccessDenied", "org.freedesktop.DBus.Error.AuthFailed", "org.bluez.Error.NotPermitted":
            return .permissionDenied(
                "permission denied (\(doing): \(detail)): bluetoothd's D-Bus policy does not let this user use it; add the user to the `bluetooth` group (or see /etc/dbus-1/system.d/bluetooth.conf)")
        case "org.bluez.Error.NotAuthorized", "org.bluez.Error.AuthenticationFailed", "org.bluez.Error.AuthenticationRejected",
            "org.bluez.Error.AuthenticationCanceled", "org.bluez.Error.AuthenticationTimeout", "org.bluez.Error.ConnectionAttemptFailed":
            return .notAuthorized(
                "the device requires pairing (\(doing): \(detail)): pair and trust it first, e.g. `bluetoothctl pair ADDRESS` then `bluetoothctl trust ADDRESS`")
        case "org.bluez.Error.NotReady":
            return .adapterOff("the Bluetooth adapter is not ready (\(doing): \(detail)): power it on with `bluetoothctl power on`")
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut":
            return .timeout("bluetoothd did not answer in time (\(doing): \(detail))")
        case "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.Disconnected":
            return .bluetoothdUnavailable("the D-Bus system bus does not answer (\(doing): \(detail)); start dbus and bluetoothd, or use --ble-socket")
        default:
            if detail.lowercased().contains("authentication") || detail.lowercased().contains("insufficient") {
                return .notAuthorized("the device requires pairing (\(doing): \(detail)): pair and trust it first, e.g. `bluetoothctl pair ADDRESS`")
            }
            return .io("\(doing) failed: \(error)")
        }
    }
}

/// A Bluetooth device as bluetoothd lists it.
struct BlueZDevice: Sendable, Hashable {
    let path: String
    let address: String
    let addressType: String
    let name: String?
    let uuids: [String]
    let rssi: Int?
    let connected: Bool

    init?(path: String, properties: [String: DBusValue]) {
        guard let address = properties["Address"]?.stringValue else { return nil }
        self.path = path
        self.address = address.uppercased()
        self.addressType = properties["AddressType"]?.stringValue ?? "public"
        self.name = properties["Name"]?.stringValue
        self.uuids = (properties["UUIDs"]?.stringsValue ?? []).map { $0.lowercased() }
        self.rssi = properties["RSSI"]?.intValue
        self.connected = properties["Connected"]?.boolValue ?? false
    }

    /// The devices under `adapter` in `objects`.
    static func all(under adapter: String, in objects: BlueZDBus.Objects) -> [BlueZDevice] {
        objects.compactMap { path, interfaces in
            guard path.hasPrefix(adapter + "/"), let properties = interfaces[BlueZDBus.deviceInterface] else { return nil }
            return BlueZDevice(path: path, properties: properties)
        }.sorted { $0.path < $1.path }
    }
}
