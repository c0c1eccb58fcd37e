import BLEHost
import Foundation
import Testing

import Glibc

@Suite("HCI transports: user channel without Bluetooth, serial ports, H4 over a real pty")
struct TransportTests {
    @Test("the HCI user channel fails at once with a message that says Bluetooth is not available (this kernel has none)")
    func userChannel() async {
        do {
            let transport = try await HCITransports.userChannel(index: 0)
            await transport.close()
            Issue.record("opened an HCI user channel on a machine without Bluetooth")
        } catch {
            // Elsewhere a kernel with Bluetooth may have no hci0, or refuse the socket to a non-root user.
            switch error {
            case .bluetoothUnavailable(let text): #expect(text.contains("Bluetooth is not available in this kernel"))
            case .noAdapter, .permissionDenied, .adapterBusy: break
            default: Issue.record("unexpected error: \(error)")
            }
        }
    }

    @Test("a serial port: a baud rate it cannot have, a missing device, a file that is no tty")
    func serialErrors() async {
        await #expect(throws: HCITransportError.self) { _ = try await HCITransports.serial(path: "/dev/null", baudRate: 123_457) }
        do {
            _ = try await HCITransports.serial(path: "/dev/ttyNOPE\(getpid())")
            Issue.record("opened a missing device")
        } catch {
            #expect(error.description.contains("does not exist"))
        }
        do {
            _ = try await HCITransports.serial(path: "/dev/null")
            Issue.record("opened /dev/null as a serial port")
        } catch {
            #expect(error.description.contains("not a serial port"))
        }
    }

    @Test("TCP: a refused connection is a typed error that names the controller")
    func tcpRefused() async {
        do {
            _ = try await HCITransports.tcp(host: "127.0.0.1", port: 1, timeout: .seconds(5))
            Issue.record("connected to port 1")
        } catch {
            guard case .unreachable(let text) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(text.contains("tcp:127.0.0.1:1"))
        }
    }

    @Test("H4 over a pseudo-terminal at 1 Mbaud with RTS/CTS: a command goes out whole, events come back as packets, close ends the stream")
    func serialOverPTY() async throws {
        var primary: Int32 = -1
        var replica: Int32 = -1
        var name = [CChar](repeating: 0, count: 128)
        try #require(openpty(&primary, &replica, &name, nil, nil) == 0)
        var raw = termios()
        tcgetattr(primary, &raw)
        cfmakeraw(&raw)
        tcsetattr(primary, TCSANOW, &raw)
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let transport = try await HCITransports.serial(path: path, baudRate: 1_000_000)
        close(replica)
        try await transport.send(.command(opcode: 0x0C03, parameters: []))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        var pollfds = [pollfd(fd: primary, events: Int16(POLLIN), revents: 0)]
        while received.count < 4, poll(&pollfds, 1, 10_000) == 1 {
            let count = read(primary, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer.prefix(count)
        }
        #expect(received == [0x01, 0x03, 0x0C, 0x00])
        // Command Complete for Reset, split over two writes, then a Number Of Completed Packets.
        let answer: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00, 0x04, 0x13, 0x05, 0x01, 0x01, 0x00, 0x02, 0x00]
        _ = answer.prefix(3).withUnsafeBytes { write(primary, $0.baseAddress, 3) }
        _ = answer.dropFirst(3).withUnsafeBytes { write(primary, $0.baseAddress, answer.count - 3) }
        var iterator = transport.inbound.makeAsyncIterator()
        #expect(await iterator.next() == .packet(.event(code: 0x0E, parameters: [0x01, 0x03, 0x0C, 0x00])))
        #expect(await iterator.next() == .packet(.event(code: 0x13, parameters: [0x01, 0x01, 0x00, 0x02, 0x00])))
        await transport.close()
        guard case .closed? = await iterator.next() else {
            Issue.record("the stream did not end with .closed")
            close(primary)
            return
        }
        #expect(await iterator.next() == nil)
        await #expect(throws: HCITransportError.self) { try await transport.send(.command(opcode: 0x0C03, parameters: [])) }
        close(primary)
    }
}
