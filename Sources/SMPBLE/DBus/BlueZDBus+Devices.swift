import Logging
import SMP

/// The SMP characteristic of a connected device, as bluetoothd exposes it.
struct BlueZCharacteristic: Sendable {
    let path: String
    let flags: [String]
}

extension BlueZDBus {
    /// How often discovery polls bluetoothd's objects, and how long one discovery session runs
    /// before it is switched off and on again (an emulated controller reports an advertiser once
    /// per scan-enable, and the kernel may drop that report while discovery is being switched on).
    static let discoveryPoll: Duration = .milliseconds(200)
    static let discoveryRestart: Duration = .seconds(2)

    /// The device the search names under `adapter`: one bluetoothd already knows (bonded, or seen
    /// earlier) at once, else the first that discovery (LE only; the SMP service's UUID when the
    /// search wants SMP devices) reports within `timeout`.
    func findDevice(
        _ search: BLEPeerSearch, adapter: String, adapterName: String, timeout: Duration, clock: SMPClock, logger: Logger
    ) async throws(BLEError) -> BlueZDevice {
        let matches: @Sendable (BlueZDevice) -> Bool
        let what: String
        let smpOnly: Bool
        switch search {
        case .address(let bytes, let type):
            matches = { device in
                BluetoothDeviceAddress(device.address)?.bytes == bytes && (device.addressType == type.rawValue)
            }
            what = BluetoothDeviceAddress(bytes: bytes, type: type == .public ? .public : .random).description
            smpOnly = false
        case .scan(let text, let serviceOnly, let accepts):
            matches = { device in
                guard let bytes = BluetoothDeviceAddress(device.address)?.bytes else { return false }
                if serviceOnly, !device.uuids.isEmpty, !device.uuids.contains(Self.serviceUUID) { return false }
                return accepts(bytes, device.name)
            }
            // The socket path's hint (--ble-type skips its scan) does not hold here: bluetoothd connects known devices only.
            if text.contains("--ble-type"), let open = text.firstIndex(of: "(") {
                what = String(text[..<open].dropLast())
            } else {
                what = text
            }
            smpOnly = serviceOnly
        }
        if let known = BlueZDevice.all(under: adapter, in: try await objects()).first(where: matches) {
            logger.info("bluetoothd knows \(known.address) (\(known.addressType)) \(known.name ?? "")")
            return known
        }
        var filter: [(String, DBusValue)] = [("Transport", .string("le")), ("DuplicateData", .boolean(true))]
        if smpOnly { filter.append(("UUIDs", .array(element: "s", [.string(Self.serviceUUID)]))) }
        try await call(adapter, Self.adapterInterface, "SetDiscoveryFilter", [.options(filter)], while: "setting the discovery filter on \(adapterName)")
        let deadline = clock.now + timeout
        var discovering = false
        defer {
            if discovering {
                let bus = self
                Task { try? await bus.call(adapter, Self.adapterInterface, "StopDiscovery", timeout: .seconds(5), while: "stopping discovery") }
            }
        }
        var restartAt = clock.now
        while clock.now < deadline {
            if clock.now >= restartAt {
                if discovering {
                    _ = try? await call(adapter, Self.adapterInterface, "StopDiscovery", timeout: .seconds(5), while: "stopping discovery")
                    discovering = false
                }
                do {
                    try await call(adapter, Self.adapterInterface, "StartDiscovery", timeout: .seconds(10), while: "starting discovery on \(adapterName)")
                    discovering = true
                } catch .io(let text) where text.contains("InProgress") || text.lowercased().contains("in progress") {
                    // Another client's discovery is running: its results are ours too.
                }
                restartAt = clock.now + Self.discoveryRestart
            }
            if let found = BlueZDevice.all(under: adapter, in: try await objects()).first(where: matches) {
                logger.info("discovered \(found.address) (\(found.addressType)) \(found.name ?? "")")
                return found
            }
            do {
                try await clock.sleep(until: clock.now + Self.discoveryPoll)
            } catch {
                throw .timeout("cancelled while looking for \(what)")
            }
        }
        throw BLEPeerSearch.notFound(what, within: timeout, via: adapterName)
    }

    /// Connects the device (unless it is connected) and waits, at most `timeout`, until bluetoothd
    /// has resolved its GATT services.
    func connect(_ device: BlueZDevice, timeout: Duration, clock: SMPClock) async throws(BLEError) {
        let deadline = clock.now + timeout
        let what = "connecting to \(device.address) (\(device.addressType))"
        if !device.connected {
            do {
                try await call(device.path, Self.deviceInterface, "Connect", timeout: timeout, while: what)
            } catch .io(let text) where text.contains("AlreadyConnected") || text.lowercased().contains("already connected") {
            } catch .timeout {
                _ = try? await call(device.path, Self.deviceInterface, "Disconnect", timeout: .seconds(5), while: "cancelling the connection")
                throw .timeout("no connection to \(device.address) (\(device.addressType)) within \(timeout): is it advertising and in range?")
            } catch .io(let text) {
                throw .hostDown("no connection to \(device.address) (\(device.addressType)): \(text)")
            }
        }
        while true {
            let resolved = try await property(device.path, Self.deviceInterface, "ServicesResolved", while: what)?.boolValue ?? false
            if resolved { return }
            let connected = try await property(device.path, Self.deviceInterface, "Connected", while: what)?.boolValue ?? false
            if !connected {
                throw .hostDown("\(device.address) (\(device.addressType)) disconnected before its services were resolved")
            }
            guard clock.now < deadline else {
                throw .timeout("bluetoothd did not resolve the services of \(device.address) within \(timeout)")
            }
            do {
                try await clock.sleep(until: clock.now + .milliseconds(100))
            } catch {
                throw .timeout("cancelled while \(what)")
            }
        }
    }

    /// The SMP characteristic among the device's GATT characteristics.
    func smpCharacteristic(of device: BlueZDevice) async throws(BLEError) -> BlueZCharacteristic {
        let objects = try await objects()
        for (path, interfaces) in objects.sorted(by: { $0.key < $1.key }) where path.hasPrefix(device.path + "/") {
            guard let properties = interfaces[Self.characteristicInterface],
                properties["UUID"]?.stringValue?.lowercased() == Self.characteristicUUID
            else { continue }
            return BlueZCharacteristic(path: path, flags: properties["Flags"]?.stringsValue ?? [])
        }
        let hasService = objects.contains { path, interfaces in
            path.hasPrefix(device.path + "/") && interfaces["org.bluez.GattService1"]?["UUID"]?.stringValue?.lowercased() == Self.serviceUUID
        }
        throw .io(
            hasService
                ? "\(device.address) has the SMP service but no SMP characteristic \(Self.characteristicUUID)"
                : "\(device.address) has no SMP service \(Self.serviceUUID): is it an SMP device?")
    }

    /// Disconnects the device (errors ignored: it may be gone already).
    func disconnect(_ devicePath: String) async {
        _ = try? await call(devicePath, Self.deviceInterface, "Disconnect", timeout: .seconds(10), while: "disconnecting")
    }
}

extension BlueZDBus {
    /// The devices advertising the SMP service that discovery reports within `duration`.
    func scan(adapter name: String?, duration: Duration, clock: SMPClock) async throws(BLEError) -> [BLEScanResult] {
        let adapter = try Self.adapter(name, in: try await objects())
        let adapterName = String(adapter.split(separator: "/").last ?? "")
        let filter: [(String, DBusValue)] = [
            ("Transport", .string("le")), ("DuplicateData", .boolean(true)), ("UUIDs", .array(element: "s", [.string(Self.serviceUUID)])),
        ]
        try await call(adapter, Self.adapterInterface, "SetDiscoveryFilter", [.options(filter)], while: "setting the discovery filter on \(adapterName)")
        let deadline = clock.now + duration
        var found: [String: BLEScanResult] = [:]
        var restartAt = clock.now
        var discovering = false
        while true {
            if clock.now >= restartAt {
                if discovering { _ = try? await call(adapter, Self.adapterInterface, "StopDiscovery", timeout: .seconds(5), while: "stopping discovery") }
                do {
                    try await call(adapter, Self.adapterInterface, "StartDiscovery", timeout: .seconds(10), while: "starting discovery on \(adapterName)")
                    discovering = true
                } catch .io(let text) where text.contains("InProgress") {
                    discovering = false
                }
                restartAt = clock.now + Self.discoveryRestart
            }
            for device in BlueZDevice.all(under: adapter, in: try await objects()) where device.uuids.contains(Self.serviceUUID) {
                let type: BluetoothDeviceAddress.AddressType = device.addressType == "public" ? .public : .random
                guard let address = BluetoothDeviceAddress(device.address, type: type) else { continue }
                found[device.address] = BLEScanResult(address: address, name: device.name, rssi: device.rssi ?? 127)
            }
            guard clock.now < deadline else { break }
            do {
                try await clock.sleep(until: min(deadline, clock.now + Self.discoveryPoll))
            } catch {
                break
            }
        }
        if discovering { _ = try? await call(adapter, Self.adapterInterface, "StopDiscovery", timeout: .seconds(5), while: "stopping discovery") }
        return found.values.sorted { $0.address.string < $1.address.string }
    }
}
