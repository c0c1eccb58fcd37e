import CBlueZ
import GATT
import Glibc
import POSIXIO
import SMP

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
        let connecting: Bool
        do {
            try prepare(fd, local: local, security: security)
            connecting = try start(fd, to: address)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        let bearer: FileDescriptorBearer
        do {
            bearer = try FileDescriptorBearer(adopting: fd, connecting: connecting)
        } catch {
            _ = Glibc.close(fd)
            throw .io("\(error)")
        }
        if connecting { try await waitUntilConnected(bearer, to: address, timeout: timeout, clock: clock) }
        return bearer
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

    /// Starts the connection; true while it is in progress, false when it is up at once.
    private static func start(_ fd: Int32, to device: BluetoothDeviceAddress) throws(BLEError) -> Bool {
        var remote = sockaddr_l2()
        remote.l2_family = sa_family_t(AF_BLUETOOTH)
        remote.l2_bdaddr = device.bdaddr
        remote.l2_cid = BLEConnector.attChannel.littleEndian
        remote.l2_bdaddr_type = device.type.bluezValue
        let started = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size)) }
        }
        if started == 0 { return false }
        if errno == EBUSY {
            // The kernel takes one ATT channel per link: bluetoothd's GATT client holds it once
            // bluetoothd (or a program through it, or the kernel's auto-connect) connected the device.
            throw .busy(
                "\(device) is connected through bluetoothd, which holds its ATT channel: disconnect it first "
                    + "(`bluetoothctl disconnect \(device.string)`; if the kernel connects it again by itself, "
                    + "`btmgmt del-device -t \(device.type.bluezValue) \(device.string)` takes it off the auto-connect list)")
        }
        guard errno == EINPROGRESS || errno == EAGAIN else { throw BLEError.from(errno: errno, while: "connecting to \(device)") }
        return true
    }

    /// Waits (on `clock`) until the bearer's connection is up; closes the bearer when it failed or
    /// is out of time.
    private static func waitUntilConnected(
        _ bearer: FileDescriptorBearer, to device: BluetoothDeviceAddress, timeout: Duration, clock: SMPClock
    ) async throws(BLEError) {
        // The time limit: closing the bearer ends the wait. True when it passed.
        let timer = clock.task { () -> Bool in
            do { try await clock.sleep(for: timeout) } catch { return false }
            await bearer.close()
            return true
        }
        let outcome: DescriptorEnd?
        do {
            try await bearer.waitUntilConnected()
            outcome = nil
        } catch {
            outcome = error
        }
        timer.cancel()
        // Connected just as the time ran out: the bearer is closed all the same.
        let expired = await timer.value
        guard let error = outcome ?? (expired ? .closed : nil) else { return }
        await bearer.close()
        switch error {
        case .closed:
            throw .timeout("no connection to \(device) within \(timeout): is it advertising and in range?")
        case .failed(let failure) where failure.call == "connect":
            throw BLEError.from(errno: failure.errno, while: "connecting to \(device)")
        case .failed(let failure):
            throw BLEError.from(errno: failure.errno, while: "waiting for \(device)")
        case .peerClosed:
            throw .refused("the device refused the connection (connecting to \(device): it closed the link)")
        }
    }
}
