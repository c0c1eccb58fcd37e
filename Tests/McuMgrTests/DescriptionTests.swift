@testable import McuMgr
import SMP
import Testing

/// Library types print readably: hashes in hex, rates with units, states and events in one line.
@Suite("Descriptions")
struct DescriptionTests {
    @Test("an image slot, hash in hex")
    func slot() {
        let slot = ImageSlot(image: 1, slot: 1, version: "1.2.0", hash: [0xde, 0xad, 0xbe, 0xef], pending: true)
        #expect("\(slot)" == "image=1 slot=1 version=1.2.0 bootable=true flags=pending hash=deadbeef")
        #expect(ImageSlot(slot: 0, version: "1", hash: [], confirmed: true, active: true).flagNames == ["active", "confirmed"])
    }

    @Test("parameters and bootloader info")
    func osTypes() {
        #expect("\(McuMgrParameters(bufferSize: 2048, bufferCount: 4))" == "buf_size 2048, buf_count 4")
        #expect("\(BootloaderInfo(name: "MCUboot", mode: 3, noDowngrade: false))" == "MCUboot, mode 3 (swap using move), downgrades allowed")
        #expect("\(BootloaderInfo(name: nil, mode: nil, noDowngrade: true))" == "unknown bootloader, mode unknown, downgrades refused")
    }

    @Test("upload progress with rate units and time left")
    func progress() {
        let progress = UploadProgress(bytesSent: 50_000, totalBytes: 100_000, currentBytesPerSecond: 25_600, averageBytesPerSecond: 20_000)
        #expect("\(progress)" == "50% (50000/100000 bytes, 25.0 KiB/s, ETA 0:02)")
    }

    @Test("upgrade states, events and reports")
    func upgrade() {
        #expect("\(FirmwareUpgradeState.requestMcuMgrParameters)" == "requestMcuMgrParameters")
        #expect("\(FirmwareUpgradeEvent.stateChanged(.upload))" == "state: upload")
        let progress = UploadProgress(bytesSent: 0, totalBytes: 10, currentBytesPerSecond: 0, averageBytesPerSecond: 0)
        #expect("\(FirmwareUpgradeEvent.uploadProgress(image: 1, progress))" == "image 1: 0% (0/10 bytes, -- B/s, ETA --:--)")
        let report = FirmwareUpgradeReport(
            uploadedImages: [0], bytesUploaded: 262_144, uploadDuration: .seconds(2), resets: 1, slots: [], pipelineDepth: 3, packetSize: 2048)
        #expect("\(report)" == "uploaded 262144 bytes in 2.00 s (128.0 KiB/s), 1 reset(s)")
        #expect("\(FirmwareUpgradeEvent.completed(report))" == "completed: uploaded 262144 bytes in 2.00 s (128.0 KiB/s), 1 reset(s)")
        var nothing = report
        nothing.uploadedImages = []
        #expect("\(nothing)" == "nothing uploaded (the images were already on the device), 1 reset(s)")
        let failed = FirmwareUpgradeEvent.failed(FirmwareUpgradeError(state: .upload, reason: .cancelled))
        #expect("\(failed)".hasPrefix("failed: "))
    }

    @Test("file hashes, settings and log entries")
    func bytes() {
        #expect("\(FileHash.Output.checksum(0xcbf4_3926))" == "cbf43926")
        #expect("\(FileHash.Output.checksum(0x1_0000_0000))" == "0000000100000000")
        #expect("\(FileHash.Output.digest([0x01, 0xab]))" == "01ab")
        #expect("\(SettingValue(value: Array("on".utf8)))" == "on")
        #expect("\(SettingValue(value: [0xff, 0x00]))" == "0xff00")
        #expect("\(LogEntry(message: Array("boot".utf8), timestamp: 5, level: 1, index: 2, module: 0))" == "[2] ts=5 level=1 module=0 boot")
        #expect("\(LogEntry(message: [0xff], timestamp: 5, level: 1, index: 2, module: 0))" == "[2] ts=5 level=1 module=0 ff")
    }
}
