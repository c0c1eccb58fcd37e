import Testing

@testable import SMPBLE

/// The D-Bus transport's pieces that need no bus: BlueZ's error names in words, and the values
/// GetManagedObjects answers read into devices. The transport itself runs against a real
/// bluetoothd in the BLE VM (BlueZVMTests).
@Suite("BlueZ D-Bus: errors and objects")
struct BlueZDBusTests {
    @Test("each D-Bus error becomes the BLEError a user can act on", arguments: [
        ("org.freedesktop.DBus.Error.ServiceUnknown", "bluetoothd is not running"),
        ("org.freedesktop.DBus.Error.AccessDenied", "permission denied"),
        ("org.bluez.Error.NotAuthorized", "the device requires pairing"),
        ("org.bluez.Error.AuthenticationFailed", "the device requires pairing"),
        ("org.bluez.Error.NotReady", "power it on with `bluetoothctl power on`"),
        ("org.freedesktop.DBus.Error.NoReply", "bluetoothd did not answer in time"),
        ("org.freedesktop.DBus.Error.FileNotFound", "the D-Bus system bus does not answer"),
        ("org.bluez.Error.InProgress", "connecting failed: busy (org.bluez.Error.InProgress)"),
    ])
    func errors(name: String, phrase: String) {
        let error = BlueZDBus.translate(DBusCallError(name: name, message: "busy"), while: "connecting")
        #expect(error.description.contains(phrase), "\(error)")
        #expect(!error.description.contains("\n"))
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.FileNotFound":
            #expect(error == .bluetoothdUnavailable(error.description))
        case "org.freedesktop.DBus.Error.AccessDenied":
            #expect(error == .permissionDenied(error.description))
        case "org.bluez.Error.NotAuthorized", "org.bluez.Error.AuthenticationFailed":
            #expect(error == .notAuthorized(error.description))
        default:
            break
        }
    }

    @Test("'Notify acquired' (bluetoothd holds the notifications for another client) is busy, not a permission the user lacks")
    func notifyAcquired() {
        let error = BlueZDBus.translate(DBusCallError(name: "org.bluez.Error.NotPermitted", message: "Notify acquired"), while: "enabling notifications")
        #expect(error == .busy(
            "bluetoothd holds the SMP characteristic's notifications for another client (enabling notifications: Notify acquired): close the other program, or restart bluetoothd (`systemctl restart bluetooth`)"))
        let policy = BlueZDBus.translate(DBusCallError(name: "org.bluez.Error.NotPermitted", message: "Not allowed"), while: "connecting")
        #expect(policy == .permissionDenied(policy.description))
    }

    @Test("GetManagedObjects' answer: adapters powered or not, devices under them with their SMP service")
    func objects() throws {
        let smp = DBusValue.variant(.array(element: "s", [.string("8d53dc1d-1db7-4cd3-868b-8a527460aa84")]))
        let objects: BlueZDBus.Objects = [
            "/org/bluez/hci0": ["org.bluez.Adapter1": ["Address": .variant(.string("00:AA:01:00:00:23")), "Powered": .variant(.boolean(true))]],
            "/org/bluez/hci1": ["org.bluez.Adapter1": ["Address": .variant(.string("00:AA:01:01:00:24")), "Powered": .variant(.boolean(false))]],
            "/org/bluez/hci0/dev_C0_5A_17_00_00_01": [
                "org.bluez.Device1": [
                    "Address": .variant(.string("C0:5A:17:00:00:01")), "AddressType": .variant(.string("random")),
                    "Name": .variant(.string("smp-sim")), "UUIDs": smp, "RSSI": .variant(.int16(-40)), "Connected": .variant(.boolean(false)),
                ]
            ],
        ]
        #expect(try BlueZDBus.adapter(nil, in: objects) == "/org/bluez/hci0")
        #expect(try BlueZDBus.adapter("00:aa:01:00:00:23", in: objects) == "/org/bluez/hci0")
        #expect(throws: BLEError.self) { try BlueZDBus.adapter("hci1", in: objects) }
        #expect(throws: BLEError.self) { try BlueZDBus.adapter("hci7", in: objects) }
        #expect(throws: BLEError.self) { try BlueZDBus.adapter(nil, in: [:]) }
        let devices = BlueZDevice.all(under: "/org/bluez/hci0", in: objects)
        #expect(devices.count == 1)
        #expect(devices.first?.address == "C0:5A:17:00:00:01")
        #expect(devices.first?.addressType == "random")
        #expect(devices.first?.name == "smp-sim")
        #expect(devices.first?.rssi == -40)
        #expect(devices.first?.uuids == ["8d53dc1d-1db7-4cd3-868b-8a527460aa84"])
        #expect(BlueZDevice.all(under: "/org/bluez/hci1", in: objects).isEmpty)
    }

    @Test("values: signatures and readers through variants")
    func values() {
        let options = DBusValue.options([("Transport", .string("le")), ("UUIDs", .array(element: "s", [.string("x")]))])
        #expect(options.signature == "a{sv}")
        #expect(options.dictionaryValue?["Transport"]?.stringValue == "le")
        #expect(options.dictionaryValue?["UUIDs"]?.stringsValue == ["x"])
        #expect(DBusValue.bytes([1, 2, 3]).signature == "ay")
        #expect(DBusValue.variant(.bytes([1, 2, 3])).bytesValue == [1, 2, 3])
        #expect(DBusValue.structure([.unixFD(5), .uint16(498)]).signature == "(hq)")
        #expect(DBusValue.structure([.unixFD(5), .uint16(498)]).descriptors == [5])
        #expect(DBusValue.variant(.uint16(498)).intValue == 498)
    }
}
