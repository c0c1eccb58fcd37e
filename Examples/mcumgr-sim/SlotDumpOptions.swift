import ArgumentParser
import SMPSimulator

import Glibc

/// `mcumgr-sim --dump-slots DIR`: on exit, every slot's bytes in a file, so that a test outside
/// the process (e.g. in the BLE VM) can compare what a client uploaded with what the device holds.
struct SlotDumpOptions: ParsableArguments {
    @Option(name: .customLong("dump-slots"), help: ArgumentHelp(
        "On exit, write each slot's contents (the bytes written since its last erase) to DIR/image-N-slot-M.bin.", valueName: "dir"))
    var directory: String?

    /// Writes the slots of `device`'s images; one line on standard error for a file it cannot write.
    func dump(_ device: SimulatedDevice) async {
        guard let directory else { return }
        let configuration = device.configuration
        for image in 0..<configuration.imageCount {
            for slot in 0..<configuration.bootloaderMode.slotsPerImage {
                let path = "\(directory)/image-\(image)-slot-\(slot).bin"
                let bytes = await device.slotContents(image: image, slot: slot)
                if let failure = Self.write(bytes, to: path) { Console.write("mcumgr-sim: cannot write \(path): \(failure)", to: 2) }
            }
        }
    }

    /// Writes `bytes` to a new file at `path`; the system's reason when it cannot.
    private static func write(_ bytes: [UInt8], to path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            offset += written
        }
        return nil
    }
}
