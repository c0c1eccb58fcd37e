import CBlueZ
import GATT
import SMP
#if canImport(Glibc)
import Glibc
#endif

/// The security a BlueZ L2CAP connection asks for (`BT_SECURITY`).
public enum BLESecurityLevel: String, Sendable, Hashable, CaseIterable {
    /// No encryption (`BT_SECURITY_LOW`).
    case low
    /// Encryption, unauthenticated pairing allowed (`BT_SECURITY_MEDIUM`).
    case medium
    /// Encryption with an authenticated (MITM-protected) key (`BT_SECURITY_HIGH`).
    case high

    var bluezValue: UInt8 {
        switch self {
        case .low: return UInt8(BT_SECURITY_LOW)
        case .medium: return UInt8(BT_SECURITY_MEDIUM)
        case .high: return UInt8(BT_SECURITY_HIGH)
        }
    }
}

extension BLEConnector {
    /// The ATT fixed channel.
    static let attChannel: UInt16 = 4

    /// Connects through the kernel's Bluetooth stack: an L2CAP LE socket (`SOCK_SEQPACKET`) on
    /// the ATT channel (CID 4) to `address`, from `adapter` (`hci0` or an adapter address; the
    /// default route when nil), at `security`, giving up after `timeout` on `clock`.
    public static func bluez(
        address: BluetoothDeviceAddress, adapter: String? = nil, security: BLESecurityLevel = .low,
        timeout: Duration = .seconds(10), clock: SMPClock = .continuous
    ) -> BLEConnector {
        BLEConnector("\(address)\(adapter.map { " via \($0)" } ?? "")") { () async throws(BLEError) -> any ATTBearer in
            try await BlueZL2CAP.connect(address: address, adapter: adapter, security: security, timeout: timeout, clock: clock)
        }
    }
}

/// Opens L2CAP LE ATT sockets through BlueZ.
enum BlueZL2CAP {
    static func connect(
        address: BluetoothDeviceAddress, adapter: String?, security: BLESecurityLevel, timeout: Duration, clock: SMPClock
    ) async throws(BLEError) -> FileDescriptorBearer {
        let local = try BlueZAdapter.find(adapter)
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_L2CAP)
        guard fd >= 0 else { throw BLEError.from(errno: errno, while: "opening an L2CAP socket") }
        do {
            try prepare(fd, local: local, security: security)
            try await start(fd, to: address, timeout: timeout, clock: clock)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        do {
            return try FileDescriptorBearer(adopting: fd)
        } catch {
            _ = Glibc.close(fd)
            throw .io("\(error)")
        }
    }

    /// Binds to the adapter on the ATT channel, sets the security level, makes the socket non-blocking.
    private static func prepare(_ fd: Int32, local: BlueZAdapter, security: BLESecurityLevel) throws(BLEError) {
        var address = sockaddr_l2()
        address.l2_family = sa_family_t(AF_BLUETOOTH)
        address.l2_bdaddr = local.address
        address.l2_cid = BLEConnector.attChannel.littleEndian
        address.l2_bdaddr_type = UInt8(BDADDR_LE_PUBLIC)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size)) }
        }
        guard bound == 0 else { throw BLEError.from(errno: errno, while: "binding to hci\(local.deviceID)") }
        var level = bt_security(level: security.bluezValue, key_size: 0)
        guard setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &level, socklen_t(MemoryLayout<bt_security>.size)) == 0 else {
            throw BLEError.from(errno: errno, while: "setting security level \(security.rawValue)")
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw BLEError.from(errno: errno, while: "making the socket non-blocking")
        }
    }

    /// Starts the connection and waits (on `clock`) until it is up, failed, or out of time.
    private static func start(_ fd: Int32, to device: BluetoothDeviceAddress, timeout: Duration, clock: SMPClock) async throws(BLEError) {
        var remote = sockaddr_l2()
        remote.l2_family = sa_family_t(AF_BLUETOOTH)
        remote.l2_bdaddr = device.bdaddr
        remote.l2_cid = BLEConnector.attChannel.littleEndian
        remote.l2_bdaddr_type = device.type.bluezValue
        let started = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size)) }
        }
        if started == 0 { return }
        if errno == EBUSY {
            // The kernel takes one ATT channel per link: bluetoothd's GATT client holds it once
            // bluetoothd (or a program through it, or the kernel's auto-connect) connected the device.
            throw .busy(
                "\(device) is connected through bluetoothd, which holds its ATT channel: disconnect it first "
                    + "(`bluetoothctl disconnect \(device.string)`; if the kernel connects it again by itself, "
                    + "`btmgmt del-device -t \(device.type.bluezValue) \(device.string)` takes it off the auto-connect list)")
        }
        guard errno == EINPROGRESS || errno == EAGAIN else { throw BLEError.from(errno: errno, while: "connecting to \(device)") }
        let outcome = await BlockingPoll.loop(fd, events: Int16(POLLOUT), timeout: timeout, clock: clock) { _ in false }
        switch outcome {
        case .timedOut:
            throw .timeout("no connection to \(device) within \(timeout): is it advertising and in range?")
        case .failed(let code):
            throw BLEError.from(errno: code, while: "waiting for \(device)")
        case .finished:
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
                throw BLEError.from(errno: errno, while: "connecting to \(device)")
            }
            if error != 0 { throw BLEError.from(errno: error, while: "connecting to \(device)") }
        }
    }
}
