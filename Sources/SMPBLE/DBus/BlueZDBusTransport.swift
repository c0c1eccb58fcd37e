import GATT
import Glibc
import Logging
import POSIXIO
import SMP
import Synchronization

/// SMP over Bluetooth LE through bluetoothd's D-Bus API (BlueZ): no root and no raw socket, and
/// the adapter stays shared with every other program on the machine.
///
/// `connect()` finds the device (a device bluetoothd knows, bonded ones included, at once; else
/// LE discovery filtered by the SMP service), calls `Device1.Connect`, waits for its services, finds
/// the SMP characteristic by UUID and acquires its write and notify descriptors (`AcquireWrite`,
/// `AcquireNotify`: `SOCK_SEQPACKET` sockets served by POSIXIO's ``PolledDescriptor``, one write
/// a Write Command, one read a notification). Where bluetoothd does not offer them, it falls back to
/// `WriteValue` (type `command`) and `StartNotify` with `PropertiesChanged` signals. The ATT MTU
/// is the one `AcquireWrite` reports. The link is lost when a descriptor hangs up, when the device's
/// `Connected` turns false, or when its object is removed (`InterfacesRemoved`); `connect()` then
/// connects again (the session resumes an upload from the device's offset).
public final class BlueZDBusTransport: SMPTransport {
    /// Which device to reach, through which adapter, and how long to look for it.
    public struct Configuration: Sendable, Hashable {
        /// The device: by address, by advertised name, or the first SMP device discovery finds.
        public var peer: BLEPeer
        /// The address's type; nil accepts either.
        public var addressType: BLEAddressType?
        /// The adapter (`hci0` or its address); nil for the first one bluetoothd lists.
        public var adapter: String?
        /// How long discovery may look for the device.
        public var scanTimeout: Duration
        /// How long connecting (and bluetoothd's service discovery) may take.
        public var connectTimeout: Duration
        /// The device's reassembly buffer when it reassembles fragmented writes; nil while unknown.
        public var reassemblyBufferSize: Int?
        /// Whether the device reassembles writes into its `buf_size` once the session has read it.
        public var deviceReassembles: Bool
        /// Whether to use `AcquireWrite`/`AcquireNotify` descriptors when bluetoothd offers them
        /// (false: always `WriteValue` and `StartNotify`).
        public var acquiresDescriptors: Bool

        /// Makes a configuration.
        public init(
            peer: BLEPeer, addressType: BLEAddressType? = nil, adapter: String? = nil, scanTimeout: Duration = .seconds(10),
            connectTimeout: Duration = .seconds(20), reassemblyBufferSize: Int? = nil, deviceReassembles: Bool = true,
            acquiresDescriptors: Bool = true
        ) {
            self.peer = peer
            self.addressType = addressType
            self.adapter = adapter
            self.scanTimeout = scanTimeout
            self.connectTimeout = connectTimeout
            self.reassemblyBufferSize = reassemblyBufferSize
            self.deviceReassembles = deviceReassembles
            self.acquiresDescriptors = acquiresDescriptors
        }
    }

    /// Whole SMP packets from the device and link changes.
    public var events: SMPTransportEvents { core.events }
    /// The configuration the transport was made with.
    public let configuration: Configuration

    private let core: GATTTransportCore
    private let state = Mutex(State())

    private struct State {
        var bluez: BlueZDBus?
        var link: Link?
        var generation = 0
        var closed = false
        var devicePath: String?
    }

    /// One connection: how writes leave and how notifications arrive.
    private final class Link: Sendable {
        enum Writer: Sendable {
            case descriptor(PolledDescriptor)
            case method(String)
        }

        let generation: Int
        let devicePath: String
        let characteristicPath: String
        let mtu: Int
        let writer: Writer
        let notifyDescriptor: PolledDescriptor?
        let values: AsyncStream<[UInt8]>
        let valueSink: AsyncStream<[UInt8]>.Continuation
        let endReason = Mutex<String?>(nil)
        let signalToken = Mutex<Int?>(nil)

        init(generation: Int, devicePath: String, characteristicPath: String, mtu: Int, writer: Writer, notifyDescriptor: PolledDescriptor?) {
            self.generation = generation
            self.devicePath = devicePath
            self.characteristicPath = characteristicPath
            self.mtu = mtu
            self.writer = writer
            self.notifyDescriptor = notifyDescriptor
            (values, valueSink) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        }

        /// Ends the link once (the first reason wins); false when it had ended.
        func end(_ reason: String) -> Bool {
            let first = endReason.withLock { current -> Bool in
                guard current == nil else { return false }
                current = reason
                return true
            }
            if first { valueSink.finish() }
            return first
        }
    }

    /// Makes a transport; nothing is opened before `connect()`.
    public init(configuration: Configuration, clock: SMPClock = .continuous, logger: Logger = Logger(label: "smp.bluez")) {
        self.configuration = configuration
        self.core = GATTTransportCore(
            reassemblyBuffer: configuration.reassemblyBufferSize, deviceReassembles: configuration.deviceReassembles, clock: clock, logger: logger)
    }

    /// Whether bluetoothd answers on the system bus (the test `mcumgr --ble` makes to choose this transport).
    public static func bluetoothdIsRunning() async -> Bool {
        await BlueZDBus.isRunning()
    }

    /// The ATT MTU of the current (or last) connection, as `AcquireWrite` reported it; 23 before the first.
    public var mtu: Int { core.mtu }

    /// The largest SMP packet sent: the reassembly buffer when the device reassembles and it is
    /// larger than one write, else ATT_MTU − 3.
    public var maximumPacketSize: Int {
        get async { core.maximumPacketSize }
    }

    /// One write's value: ATT_MTU − 3.
    public var linkUnit: Int {
        get async { core.linkUnit }
    }

    /// The session's report of the device's `buf_size`: the device reassembles writes into it.
    public func setDeviceBufferSize(_ size: Int?) async {
        core.deviceReported(bufferSize: size)
    }

    // MARK: Connecting

    /// Connects (or reconnects after a link loss); does nothing while connected.
    public func connect() async throws(SMPTransportError) {
        try await core.connectGate.withGate { () async throws(SMPTransportError) in
            let (current, closed) = state.withLock { ($0.link, $0.closed) }
            if closed { throw .closed }
            if let current, current.endReason.withLock({ $0 }) == nil { return }
            do throws(BLEError) {
                try await establish()
            } catch {
                throw .unreachable(error.description)
            }
        }
    }

    private func establish() async throws(BLEError) {
        let bluez: BlueZDBus
        if let open = state.withLock({ $0.bluez }) {
            bluez = open
        } else {
            bluez = try await BlueZDBus.open()
            let stale = state.withLock { s -> Bool in
                if s.closed { return true }
                s.bluez = bluez
                return false
            }
            if stale {
                await bluez.bus.close()
                throw .io("the transport was closed")
            }
        }
        let objects = try await bluez.objects()
        let adapter = try BlueZDBus.adapter(configuration.adapter, in: objects)
        let adapterName = String(adapter.split(separator: "/").last ?? "")
        let search = try BLEPeerSearch(configuration.peer, addressType: configuration.addressType)
        let device = try await bluez.findDevice(
            search, adapter: adapter, adapterName: adapterName, timeout: configuration.scanTimeout, clock: core.clock, logger: core.logger)
        state.withLock { $0.devicePath = device.path }
        try await bluez.connect(device, timeout: configuration.connectTimeout, clock: core.clock)
        let characteristic = try await bluez.smpCharacteristic(of: device)
        let link: Link
        do {
            link = try await open(characteristic, of: device, bluez: bluez)
        } catch {
            await bluez.disconnect(device.path)
            throw error
        }
        let stale = state.withLock { s -> Bool in
            if s.closed { return true }
            s.link = link
            return false
        }
        if stale {
            await release(link, bluez: bluez)
            throw .io("the transport was closed")
        }
        startForwarding(link, bluez: bluez)
        core.connected(
            mtu: link.mtu, "connected to \(device.address) through bluetoothd: ATT MTU \(link.mtu)\(link.notifyDescriptor == nil ? " (WriteValue/StartNotify)" : "")")
    }

    /// Acquires the characteristic's descriptors (or subscribes to its notifications) and watches the device.
    private func open(_ characteristic: BlueZCharacteristic, of device: BlueZDevice, bluez: BlueZDBus) async throws(BLEError) -> Link {
        let generation = state.withLock { s -> Int in
            s.generation += 1
            return s.generation
        }
        guard characteristic.flags.contains("notify") || characteristic.flags.contains("indicate") else {
            throw .io("the SMP characteristic of \(device.address) does not notify (flags: \(characteristic.flags.joined(separator: ", ")))")
        }
        // Link loss by signal: Connected false, or the device's object removed.
        try await addMatches(for: device.path, bluez: bluez)

        var writeDescriptor: PolledDescriptor?
        var notifyDescriptor: PolledDescriptor?
        var mtu = 23
        if configuration.acquiresDescriptors, characteristic.flags.contains("write-without-response") {
            if case let (fd, value)? = try await acquire("AcquireWrite", characteristic, bluez: bluez) {
                mtu = value
                writeDescriptor = try descriptor(fd, name: "bluez-write", readSize: 16)
            }
            if writeDescriptor != nil, case let (fd, value)? = try await acquire("AcquireNotify", characteristic, bluez: bluez) {
                mtu = max(mtu, value)
                do {
                    notifyDescriptor = try descriptor(fd, name: "bluez-notify", readSize: max(value, 517) + 1)
                } catch {
                    await writeDescriptor?.close()
                    throw error
                }
            }
        }
        if notifyDescriptor == nil {
            await writeDescriptor?.close()
            writeDescriptor = nil
            // The MTU bluetoothd negotiated (BlueZ 5.62 and later); else the smallest.
            let negotiated = try? await bluez.property(characteristic.path, BlueZDBus.characteristicInterface, "MTU", while: "reading the MTU")
            mtu = negotiated?.intValue ?? 23
            try await bluez.bus.addMatchRule(signalRule(path: characteristic.path), bluez: bluez)
        }
        let link = Link(
            generation: generation, devicePath: device.path, characteristicPath: characteristic.path, mtu: max(mtu, 23),
            writer: writeDescriptor.map { .descriptor($0) } ?? .method(characteristic.path), notifyDescriptor: notifyDescriptor)
        let token = bluez.bus.onSignal { [weak self] signal in self?.handle(signal, for: link) }
        link.signalToken.withLock { $0 = token }
        if notifyDescriptor == nil {
            do {
                try await bluez.call(characteristic.path, BlueZDBus.characteristicInterface, "StartNotify", while: "enabling notifications")
            } catch {
                bluez.bus.removeHandler(token)
                throw error
            }
        }
        return link
    }

    private func addMatches(for devicePath: String, bluez: BlueZDBus) async throws(BLEError) {
        try await bluez.bus.addMatchRule(signalRule(path: devicePath), bluez: bluez)
        try await bluez.bus.addMatchRule(
            "type='signal',sender='\(BlueZDBus.service)',interface='\(BlueZDBus.objectManagerInterface)',member='InterfacesRemoved'", bluez: bluez)
    }

    private func signalRule(path: String) -> String {
        "type='signal',sender='\(BlueZDBus.service)',interface='\(BlueZDBus.propertiesInterface)',member='PropertiesChanged',path='\(path)'"
    }

    /// `AcquireWrite`/`AcquireNotify`: the descriptor and MTU, or nil when bluetoothd does not offer it.
    private func acquire(_ method: String, _ characteristic: BlueZCharacteristic, bluez: BlueZDBus) async throws(BLEError) -> (Int32, Int)? {
        let reply: [DBusValue]
        do {
            reply = try await bluez.bus.call(
                BlueZDBus.service, characteristic.path, BlueZDBus.characteristicInterface, method, [.options([])], timeout: .seconds(10))
        } catch {
            switch error.name {
            case "org.bluez.Error.NotSupported", "org.bluez.Error.NotPermitted", "org.bluez.Error.Failed", "org.freedesktop.DBus.Error.UnknownMethod":
                core.logger.info("\(method) not available (\(error)): falling back to WriteValue/StartNotify")
                return nil
            default:
                throw bluez.translate(error, while: method)
            }
        }
        guard reply.count >= 2, case .unixFD(let fd) = reply[0], let mtu = reply[1].intValue else {
            for fd in reply.flatMap(\.descriptors) { Glibc.close(fd) }
            throw .io("\(method) answered without a descriptor and MTU")
        }
        return (fd, mtu)
    }

    private func descriptor(_ fd: Int32, name: String, readSize: Int) throws(BLEError) -> PolledDescriptor {
        do {
            return try PolledDescriptor(adopting: fd, kind: .datagrams, readSize: readSize, readAhead: 64, threadName: name)
        } catch {
            Glibc.close(fd)
            throw .io("cannot serve the acquired descriptor: \(error)")
        }
    }

    // MARK: Link changes

    /// A signal on the bus: a notification (fallback), or the device gone.
    private func handle(_ signal: DBusSignal, for link: Link) {
        if signal.member == "PropertiesChanged", signal.arguments.count >= 2 {
            let interface = signal.arguments[0].stringValue
            let changed = signal.arguments[1].dictionaryValue ?? [:]
            if signal.path == link.characteristicPath, interface == BlueZDBus.characteristicInterface, link.notifyDescriptor == nil,
                let value = changed["Value"]?.bytesValue
            {
                link.valueSink.yield(value)
            } else if signal.path == link.devicePath, interface == BlueZDBus.deviceInterface, changed["Connected"]?.boolValue == false {
                _ = link.end("the device disconnected (bluetoothd reports Connected false)")
            }
        } else if signal.member == "InterfacesRemoved", signal.arguments.first?.stringValue == link.devicePath {
            _ = link.end("bluetoothd removed the device")
        }
    }

    /// Feeds one connection's notifications through a fresh assembler until the link ends.
    private func startForwarding(_ link: Link, bluez: BlueZDBus) {
        let core = self.core
        if let notify = link.notifyDescriptor {
            core.clock.task {
                while let read = await notify.read() {
                    switch read {
                    case .bytes(let value): link.valueSink.yield(value)
                    case .end(let end):
                        _ = link.end(end == .peerClosed ? "bluetoothd closed the notification socket (the link is down)" : "notifications ended: \(end)")
                    }
                }
            }
        }
        core.clock.task {
            var assembler = SMPPacketAssembler.responses()
            for await value in link.values {
                core.notified(value, assembler: &assembler)
            }
            await self.linkEnded(link, bluez: bluez)
        }
    }

    private func linkEnded(_ link: Link, bluez: BlueZDBus) async {
        let reason = link.endReason.withLock { $0 } ?? "the link ended"
        await release(link, bluez: bluez)
        let current = state.withLock { s -> Bool in
            guard s.link?.generation == link.generation else { return false }
            s.link = nil
            return !s.closed
        }
        guard current else { return }
        core.disconnected(reason, what: link.devicePath)
    }

    /// Gives back what the link holds: descriptors closed (bluetoothd releases its side), the signal handler removed.
    private func release(_ link: Link, bluez: BlueZDBus) async {
        _ = link.end("released")
        if let token = link.signalToken.withLock({ $0 }) { bluez.bus.removeHandler(token) }
        if case .descriptor(let writer) = link.writer { await writer.close() }
        await link.notifyDescriptor?.close()
    }

    // MARK: Sending

    /// Sends one SMP packet as consecutive writes of at most ATT_MTU − 3 bytes.
    public func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        try await core.sendGate.withGate { () async throws(SMPTransportError) in
            try await sendNow(packet)
        }
    }

    private func sendNow(_ packet: [UInt8]) async throws(SMPTransportError) {
        let (link, closed, bluez) = state.withLock { ($0.link, $0.closed, $0.bluez) }
        if closed { throw .closed }
        guard let link, let bluez else { throw .notConnected }
        if let reason = link.endReason.withLock({ $0 }) { throw .disconnected(reason: reason) }
        for piece in try core.writes(of: packet, mtu: link.mtu) {
            let write = Array(piece)
            switch link.writer {
            case .descriptor(let descriptor):
                do {
                    try await descriptor.write(write)
                } catch {
                    let reason = "the write socket failed: \(error)"
                    _ = link.end(reason)
                    throw .disconnected(reason: reason)
                }
            case .method(let path):
                do {
                    try await bluez.bus.call(
                        BlueZDBus.service, path, BlueZDBus.characteristicInterface, "WriteValue",
                        [.bytes(write), .options([("type", .string("command"))])], timeout: .seconds(10))
                } catch {
                    if link.endReason.withLock({ $0 }) != nil || error.name == "org.bluez.Error.NotConnected" {
                        throw .disconnected(reason: "\(error)")
                    }
                    throw .io("BLE write failed: \(bluez.translate(error, while: "WriteValue"))")
                }
            }
        }
    }

    /// Disconnects the device, releases what bluetoothd gave, and finishes `events`.
    public func close() async {
        let (link, bluez, devicePath, wasClosed) = state.withLock { s -> (Link?, BlueZDBus?, String?, Bool) in
            let was = s.closed
            s.closed = true
            defer {
                s.link = nil
                s.bluez = nil
            }
            return (s.link, s.bluez, s.devicePath, was)
        }
        if let bluez {
            if let link {
                await release(link, bluez: bluez)
                if link.notifyDescriptor == nil {
                    core.logger.debug("closing: StopNotify on \(link.characteristicPath)")
                    _ = try? await bluez.call(link.characteristicPath, BlueZDBus.characteristicInterface, "StopNotify", timeout: .seconds(5), while: "StopNotify")
                }
            }
            if let devicePath {
                core.logger.debug("closing: Disconnect \(devicePath)")
                await bluez.disconnect(devicePath)
            }
            await bluez.bus.close()
            core.logger.debug("closing: the D-Bus connection is closed")
        }
        if !wasClosed { core.finish() }
    }
}

extension DBusConnection {
    /// `addMatch` with the error in BlueZ's words.
    func addMatchRule(_ rule: String, bluez: BlueZDBus) async throws(BLEError) {
        do {
            try await addMatch(rule)
        } catch {
            throw bluez.translate(error, while: "subscribing to bluetoothd's signals")
        }
    }
}

extension BlueZDBusTransport {
    /// The SMP devices bluetoothd's LE discovery reports through `adapter` (nil: the first one)
    /// within `duration`, with the devices it already knows that advertise the SMP service.
    public static func scan(adapter: String?, duration: Duration, clock: SMPClock = .continuous) async throws(BLEError) -> [BLEScanResult] {
        let bluez = try await BlueZDBus.open()
        do {
            let results = try await bluez.scan(adapter: adapter, duration: duration, clock: clock)
            await bluez.bus.close()
            return results
        } catch {
            await bluez.bus.close()
            throw error
        }
    }
}
