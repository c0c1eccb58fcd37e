import GATT
import Logging
import SMP
import SMPBLE
import SMPSimulator

/// Bluetooth LE: the simulator's GATT peripheral (SMP service) in this process, reached through
/// a socketpair by our `BLETransport`, with the simulator's BLE link model pacing every ATT PDU
/// by PHY, data length, connection interval and the device's link-layer buffers.
struct BLELink: BenchLink {
    let model: BLELinkModel
    /// ATT MTU offered by the device and asked for by the client.
    let mtu: Int
    /// The device reassembles SMP packets written in several parts (up to buf_size).
    let reassembly: Bool
    let buffers: DeviceBuffers
    let slotSize: Int

    var family: String { "BLE" }

    var label: String {
        let interval = Double(model.connectionInterval.components.attoseconds) / 1e15 + Double(model.connectionInterval.components.seconds) * 1000
        return "BLE \(model.phy.rawValue)\(model.dataLengthExtension ? " DLE" : "") \(TextFormat.number(interval)) ms, \(model.deviceBuffers) LL buf" + (reassembly ? "" : ", no reassembly")
    }

    /// With reassembly, SMP packets fill the device's buffer (in several writes); without, one write.
    var packetSize: Int { reassembly ? buffers.size : mtu - 3 }

    func start() async throws -> any LinkSession {
        var quiet = Logger(label: "upload-throughput.ble")
        quiet.logLevel = .error
        var configuration = DeviceConfiguration()
        configuration.bufferSize = buffers.size
        configuration.bufferCount = buffers.count
        configuration.slotSize = slotSize
        let device = SimulatedDevice(configuration: configuration, logger: quiet)
        _ = await device.installRunningImages(version: ImageVersion(1, 0, 0), payloadSize: 4096)
        let peripheral = await SimulatorGATTPeripheral.start(
            device: device, configuration: GATTPeripheralConfiguration(maximumMTU: mtu, reassembly: reassembly, link: model), logger: quiet)
        return BLESession(peripheral: peripheral, mtu: mtu, reassembly: reassembly, bufferSize: buffers.size, logger: quiet)
    }

    /// Uplink: every request packet goes as writes of at most MTU − 3 value bytes, each an ATT PDU
    /// cut into link-layer packets; a connection event carries `packetsPerEvent` of them per
    /// `connectionInterval`. A round trip takes at least the events that carry the request plus
    /// the next event for the notification that answers it. Downlink: the device sends at most
    /// one answer per connection event, as Zephyr's `smp_bt` waits for each notification's sent
    /// callback before it handles the next request (the peripheral models that wait; an upload
    /// answer of about 20 bytes is one notification at these MTUs).
    func limit(window: Int, chunk: Int, packet: Int) -> Double? {
        let value = mtu - 3
        let writes = (packet + value - 1) / value
        let last = packet - (writes - 1) * value
        let linkPackets = (writes - 1) * model.linkLayerPackets(forATTPDU: mtu) + model.linkLayerPackets(forATTPDU: last + 3)
        let interval = model.connectionInterval.seconds
        let perEvent = Double(model.packetsPerEvent)
        let bandwidth = Double(chunk) * perEvent / interval / Double(linkPackets)
        let events = (linkPackets + model.packetsPerEvent - 1) / model.packetsPerEvent
        let roundTrip = Double(events + 1) * interval
        let answersPerSecond = 1 / interval
        return min(bandwidth, Double(chunk) * answersPerSecond, Double(min(window, buffers.count) * chunk) / roundTrip)
    }
}

struct BLESession: LinkSession {
    let peripheral: SimulatorGATTPeripheral
    let mtu: Int
    let reassembly: Bool
    let bufferSize: Int
    let logger: Logger

    var address: LinkAddress { .inProcess }

    func makeTransport() async throws -> any SMPTransport {
        let peripheral = self.peripheral
        let connector = BLEConnector("simulated peripheral") { () async throws(BLEError) -> any ATTBearer in
            do { return try await peripheral.connectSocketPair() } catch { throw .hostDown("\(error)") }
        }
        return BLETransport(
            connector: connector,
            configuration: BLETransport.Configuration(
                preferredMTU: mtu, reassemblyBufferSize: reassembly ? bufferSize : nil, deviceReassembles: reassembly),
            logger: logger)
    }

    func stop() async {
        await peripheral.close()
    }
}
