import CBlueZ
import Glibc

/// The kernel's Bluetooth management interface (mgmt, `HCI_CHANNEL_CONTROL`), asked what
/// libbluetooth cannot tell: which adapters the kernel's Bluetooth stack manages.
///
/// An adapter that a program holds through the HCI user channel (`mcumgr-sim --hci user:1`,
/// `mcumgr --hci user:1`) is up, and libbluetooth's default route picks it; but the kernel does not
/// route through it, and commands sent to it on a raw HCI socket reach that program's controller.
/// mgmt lists only the adapters the kernel manages. Reading the list needs no privilege.
enum BlueZManagement {
    /// Read Controller Index List.
    private static let readIndexList: UInt16 = 0x0003
    /// Command Complete event.
    private static let commandComplete: UInt16 = 0x0001

    /// The indexes (`hci0` is 0) of the adapters the kernel manages; nil when mgmt does not answer
    /// within `timeoutMilliseconds` or cannot be opened.
    static func managedAdapters(timeoutMilliseconds: Int32 = 1000) -> Set<Int32>? {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), BTPROTO_HCI)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(HCI_DEV_NONE)
        address.hci_channel = UInt16(HCI_CHANNEL_CONTROL)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
        }
        guard bound == 0 else { return nil }
        // Opcode, controller index (none), parameter length, all little-endian.
        let request: [UInt8] = [UInt8(readIndexList & 0xFF), UInt8(readIndexList >> 8), 0xFF, 0xFF, 0x00, 0x00]
        guard request.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == request.count else { return nil }
        var remaining = timeoutMilliseconds
        var buffer = [UInt8](repeating: 0, count: 1024)
        while remaining > 0 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let started = monotonicMilliseconds()
            let ready = poll(&pfd, 1, remaining)
            remaining -= Int32(clamping: monotonicMilliseconds() - started)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return nil }
            if let indexes = indexList(in: buffer.prefix(count)) { return indexes }
        }
        return nil
    }

    /// The indexes in a Command Complete event for Read Controller Index List; nil for any other
    /// event (mgmt also sends events nobody asked for) or a failed or short answer.
    static func indexList(in packet: ArraySlice<UInt8>) -> Set<Int32>? {
        let bytes = Array(packet)
        func u16(_ at: Int) -> Int? { at + 1 < bytes.count ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : nil }
        // Event code, index, parameter length; then opcode, status, count, indexes.
        guard u16(0) == Int(commandComplete), u16(6) == Int(readIndexList), bytes.count > 8, bytes[8] == 0, let count = u16(9) else { return nil }
        guard bytes.count >= 11 + 2 * count else { return nil }
        return Set((0..<count).compactMap { u16(11 + 2 * $0).map(Int32.init) })
    }

    private static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}
