import Foundation
import SMP
import SMPSerial
import Testing

import Glibc

@Suite("Serial port errors a user can act on")
struct SerialPortErrorTests {
    @Test("a missing device is reported as missing, through the transport as unreachable")
    func missingDevice() async throws {
        let path = "/dev/ttyNOPE\(getpid())"
        #expect(throws: SerialPortError.deviceMissing(path: path)) { try SerialPort.open(path) }
        let transport = try SerialTransport(options: SerialConnectionOptions(path: path))
        await #expect(throws: SMPTransportError.unreachable(SerialPortError.deviceMissing(path: path).description)) {
            try await transport.connect()
        }
        await #expect(throws: SMPTransportError.notConnected) { try await transport.send([0, 0, 0, 0, 0, 0, 0, 0, 0]) }
        await transport.close()
        await #expect(throws: SMPTransportError.closed) { try await transport.connect() }
    }

    @Test("a file that is not a tty is refused as such")
    func notATerminal() throws {
        #expect(throws: SerialPortError.notATerminal(path: "/dev/null")) { try SerialPort.open("/dev/null") }
    }

    @Test("a non-standard baud rate is refused before anything is opened")
    func baudRate() throws {
        #expect(throws: SerialPortError.unsupportedBaudRate(12345)) { try SerialPort.open("/dev/null", baudRate: 12345) }
        #expect(SerialPort.standardBaudRates[1_000_000] != nil && SerialPort.standardBaudRates[115_200] != nil)
    }

    @Test("permission denied names the group that owns the device and how to join it")
    func permissionDenied() throws {
        // Tests run as root here, so open() itself would succeed: check what open() reports for
        // EACCES on a real file owned by a real group, found with stat and getgrgid.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serial-perm-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ttyFAKE").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let group = getgrnam("dialout") ?? getgrnam("tty") ?? getgrgid(getgid())
        let gid = try #require(group).pointee.gr_gid
        let name = String(cString: try #require(group).pointee.gr_name)
        #expect(chown(path, getuid(), gid) == 0)
        #expect(chmod(path, 0o660) == 0)

        let error = SerialPort.openFailure(path: path, errno: EACCES)
        #expect(error == .permissionDenied(path: path, group: name, mode: "-rw-rw----"))
        #expect(error.description.contains("group '\(name)'"))
        #expect(error.description.contains("usermod -aG \(name)"))
        #expect(SerialPort.openFailure(path: path, errno: EBUSY) == .busy(path: path))
        #expect(SerialPort.openFailure(path: path, errno: ENOENT) == .deviceMissing(path: path))
    }
}
