// products: SMPSimulator SMPTestSupport SMP CBOR swift-log/Logging
import CBOR
import FuzzSupport
import Logging
import SMP
import SMPSimulator
import SMPTestSupport

/// The simulator's request handler (Zephyr's `smp.c` and every group) as any client or attacker
/// reaches it: a fresh device running a small image per input, fed a sequence of received buffers
/// (each a two-byte length and the bytes), so that uploads, state writes, files and settings
/// build on one another. Every buffer is answered with well-formed packets, or not at all. The
/// device runs on virtual time, driven by libFuzzer's thread (no thread or pool hand-off per input).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSimulator(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    var buffers: [[UInt8]] = []
    while !input.isAtEnd, buffers.count < 64 { buffers.append(input.piece()) }
    let received = buffers
    VirtualRuntime().runOnCallingThread { clock in
        var configuration = DeviceConfiguration()
        configuration.imageCount = 2
        configuration.slotSize = 64 * 1024
        configuration.bufferSize = 1024
        configuration.fileSystemCapacity = 64 * 1024
        configuration.fileSystemMaximumFiles = 64
        configuration.settingsMaximumEntries = 64
        configuration.usesIndefiniteLengthMaps = received.count % 2 == 1
        let device = SimulatedDevice(configuration: configuration, clock: clock, logger: Device.quiet)
        await device.install(Device.running, image: 0, slot: 0)
        for buffer in received {
            for answer in await device.handle(buffer) {
                guard let packet = try? SMPPacket(decoding: answer) else { fatalError("the device answered a malformed packet") }
                precondition(packet.header.operation.isResponse, "the device answered with a request")
                precondition(answer.count <= configuration.bufferSize, "an answer larger than buf_size")
                guard case .map? = try? packet.decodedPayload() else { fatalError("an answer that is not a CBOR map") }
            }
        }
    }
    return 0
}

enum Device {
    /// A small running image (1 KiB payload), made once.
    static let running = MCUbootImageMaker.make(version: ImageVersion(1, 0, 0), payloadSize: 1024)
    static let quiet: Logger = {
        var logger = Logger(label: "fuzz-simulator")
        logger.logLevel = .critical
        return logger
    }()
}
