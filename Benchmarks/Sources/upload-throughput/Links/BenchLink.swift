import McuMgr
import SMP
import SMPTestSupport

/// A link the benchmark measures. Each transport adds one conforming type (its device, how our
/// engine and the other tools reach it, and its theoretical limit) and its rows in `BenchPlan`.
protocol BenchLink: Sendable {
    /// The group in tables and plots: `UDP`, `serial`, `BLE`.
    var family: String { get }
    /// The row's link, e.g. `UDP 5 ms` or `serial 115200 baud`.
    var label: String { get }
    /// The device's `buf_size` and `buf_count`.
    var buffers: DeviceBuffers { get }
    /// The largest SMP packet our engine sends on this link (the chunk size follows from it).
    var packetSize: Int { get }
    /// Starts a fresh device on this link; every run gets its own, so each upload starts from an empty slot.
    func start() async throws -> any LinkSession
    /// The most image bytes per second the link can carry with `window` requests in flight, each
    /// with `chunk` data bytes in a request packet of `packet` bytes (nil when it has no limit
    /// below the machine's speed, such as loopback UDP without latency).
    func limit(window: Int, chunk: Int, packet: Int) -> Double?
}

/// A device being served on a link, for one run.
protocol LinkSession: Sendable {
    /// Where whole-command tools find the device.
    var address: LinkAddress { get }
    /// A new transport for our engine (not yet connected).
    func makeTransport() async throws -> any SMPTransport
    /// Stops the device.
    func stop() async
}

/// How a tool in another process reaches the device.
enum LinkAddress: Sendable {
    case udp(host: String, port: Int)
    case serial(path: String, baud: Int)
    /// Only in this process (no other tool can reach it).
    case inProcess
}

/// A device's SMP buffers.
struct DeviceBuffers: Sendable, Hashable {
    var size: Int
    var count: Int
}

/// The engine's chunk sizes (alignment 4) for packets of a given size, from the engine itself.
enum ChunkGeometry {
    /// Data bytes of a later (not first) chunk in a request packet of `packet` bytes.
    static func chunk(packet: Int, imageSize: Int) -> Int {
        let target = ImageUploadTarget(client: idleClient, image: 0, sha: Array(repeating: 0, count: 32))
        let engine = UploadEngine(target: target, configuration: UploadConfiguration(byteAlignment: 4))
        return (try? engine.chunkSizes(totalLength: imageSize, packetSize: packet).later) ?? 0
    }

    private static let idleClient = SMPClient(transport: LoopbackTransport())
}
