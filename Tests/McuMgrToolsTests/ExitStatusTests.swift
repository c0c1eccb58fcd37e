import McuBoot
import McuMgr
import McuMgrConnection
import McuMgrTools
import SMP
import SMPUDP
import Testing

/// Every error a command can meet, and the exit status and message it ends with:
/// 0 success, 1 device error, 2 usage, 3 transport or timeout, 4 invalid input file.
@Suite("Errors to exit statuses")
struct ExitStatusTests {
    @Test("the documented numbers")
    func numbers() {
        #expect(McuMgrTools.ExitStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 130])
    }

    @Test("session errors", arguments: [
        (SMPError.device(.image(.hashNotFound)), McuMgrTools.ExitStatus.device,
         "the device answered with an error: IMG_MGMT_ERR_HASH_NOT_FOUND (8): no image on the device has that hash; list the images and their hashes with 'mcumgr image list'"),
        (.device(.status(.notSupported, reason: nil)), .device, "the device answered with an error: \(SMPDeviceError.status(.notSupported, reason: nil)); the device was built without this command"),
        (.timeout(group: .os, command: 0, attempts: 3), .transport,
         "no response from the device to os command 0 after 3 attempts; check the connection, or raise --timeout (or --retries)"),
        (.transport(.unreachable("x")), .transport, "cannot reach the device: x; check the address and that the device is up"),
        (.requestTooLarge(size: 600, limit: 512), .usage,
         "request of 600 bytes exceeds the 512-byte packet limit; raise --mtu if the device takes larger packets, or send less"),
        (.invalidResponse("bad"), .device, "invalid response from the device: bad"),
        (.invalidRequest("bad"), .usage, "invalid request: bad"),
        (.closed, .transport, "the connection to the device was closed"),
        (.cancelled, .interrupted, "cancelled"),
    ])
    func session(error: SMPError, status: McuMgrTools.ExitStatus, message: String) {
        #expect(CommandFailure(error as any Error) == CommandFailure(status, message))
    }

    @Test("upload errors")
    func upload() {
        #expect(CommandFailure(UploadError.smp(.device(.image(.noFreeSlot))) as any Error) == CommandFailure(
            .device, "the device refused the upload: \(SMPDeviceError.image(.noFreeSlot)); confirm or erase the image in slot 1 first ('mcumgr image confirm', 'mcumgr image erase')"))
        #expect(CommandFailure(UploadError.smp(.closed) as any Error) == CommandFailure(.transport, "the connection to the device was closed"))
        #expect(CommandFailure(UploadError.stalled(offset: 10, lastError: .closed) as any Error).status == .transport)
        #expect(CommandFailure(UploadError.invalidConfiguration("depth") as any Error).status == .usage)
        #expect(CommandFailure(UploadError.verificationFailed as any Error).status == .device)
        #expect(CommandFailure(UploadError.cancelled as any Error)
            == CommandFailure(.interrupted, "upload cancelled; running the same command again resumes it"))
    }

    @Test("firmware upgrade errors take the status of their cause")
    func upgrade() {
        func failure(_ reason: FirmwareUpgradeError.Reason, in state: FirmwareUpgradeState = .upload) -> CommandFailure {
            CommandFailure(FirmwareUpgradeError(state: state, reason: reason) as any Error)
        }
        #expect(failure(.invalidImage(index: 0, .tooShort(size: 3))).status == .input)
        #expect(failure(.invalidConfiguration("x")).status == .usage)
        #expect(failure(.smp(.device(.image(.currentVersionIsNewer)))).status == .device)
        #expect(failure(.smp(.timeout(group: .image, command: 1, attempts: 3)), in: .upload).status == .transport)
        #expect(failure(.smp(.closed), in: .reset).message == "firmware upgrade failed while resetting the device and waiting for it: the connection to the device was closed")
        #expect(failure(.upload(.smp(.closed))).status == .transport)
        #expect(failure(.upload(.smp(.device(.image(.noFreeSlot))))).status == .device)
        #expect(failure(.downgradeRefused(image: 0, running: "1.0.0", new: "0.9.0")).status == .device)
        #expect(failure(.imageNotActive(image: 0)).status == .device)
        #expect(failure(.unexpectedState("x")).status == .device)
        #expect(failure(.deviceDidNotReturn).status == .transport)
        #expect(failure(.cancelled).status == .interrupted)
    }

    @Test("connection, profile, file and image errors")
    func local() {
        #expect(CommandFailure(ConnectionStringError.unknownType("x") as any Error) == CommandFailure(.usage, "unknown connection type 'x'; use udp, serial, ble or sim"))
        #expect(CommandFailure(ConnectionError.transportUnavailable(.hci) as any Error) == CommandFailure(
            .transport, "Bluetooth LE over HCI is not available: no connector for it is registered with this connection factory"))
        #expect(CommandFailure(ConnectionError.connectFailed(.udp(UDPEndpoint(host: "h", port: 1)), reason: .unreachable("no")) as any Error)
            == CommandFailure(.transport, "cannot reach h:1 over UDP: cannot reach the device: no"))
        #expect(CommandFailure(InputFileError.missing("a.bin") as any Error) == CommandFailure(.input, "no such file: a.bin; check the path"))
        #expect(CommandFailure(McuBootError.missingHash as any Error).status == .input)
        #expect(CommandFailure(ProfileStoreError.unwritable(path: "p", reason: "r") as any Error).status == .input)
        #expect(CommandFailure(ProfileStoreError.unreadable(path: "p", reason: "r") as any Error).status == .input)
        #expect(CommandFailure(ProfileStoreError.newerVersion(path: "p", version: 2) as any Error).status == .input)
        #expect(CommandFailure(ProfileStoreError.notFound(name: "x", path: nil) as any Error).status == .usage)
        #expect(CommandFailure(FileDownloadError.tooLarge(name: "/f", length: 10, limit: 5) as any Error).status == .device)
        #expect(CommandFailure(FileDownloadError.destination(path: "/x", reason: "r") as any Error).status == .input)
        #expect(CommandFailure(FileDownloadError.smp(.timeout(group: .fs, command: 0, attempts: 1)) as any Error).status == .transport)
    }

    @Test("a failure keeps its own status, cancellation is an interruption, anything else is a device error")
    func others() {
        struct Odd: Error {}
        #expect(CommandFailure(CommandFailure(.usage, "x") as any Error) == CommandFailure(.usage, "x"))
        #expect(CommandFailure(CancellationError() as any Error) == CommandFailure(.interrupted, "interrupted"))
        #expect(CommandFailure(Odd() as any Error).status == .device)
    }
}
