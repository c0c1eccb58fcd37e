import CBOR
import SMP

/// The device itself: flash, settings, files, clock and log, and the SMP server that reads
/// requests out of a received buffer and builds the responses (Zephyr's `smp.c`).
///
/// Not thread-safe: `SimulatedDevice` owns one and touches it only from its actor.
final class DeviceCore {
    let configuration: DeviceConfiguration
    /// The time source (the simulated device's; virtual in tests).
    let time: SMPClock
    /// Image pairs, by image number.
    var images: [ImagePair]
    /// The image upload in progress (Zephyr's `g_img_mgmt_state`).
    var upload: PartialUpload?
    var settings: SettingsStore
    var files: FileTree
    /// The FS group's open file.
    var openFile: OpenFile?
    var clock: DeviceClock
    var log = EventLog()
    var counters = DeviceCounters()
    /// When the device last booted.
    private(set) var bootInstant: SMPInstant
    /// Boots since the simulator started (the first boot is 1).
    private(set) var bootCount = 0
    /// Why the device last booted (`power on` at first).
    private(set) var resetReason = "power on"
    /// The upload offsets at which a fault fires once.
    var uploadFaults = UploadFaults()
    /// Image requests still to be answered `busy`.
    var busyFaults = BusyFaults()
    /// Effects of the request being handled, collected for the link layer.
    var effects: [DeviceEffect] = []
    /// Flash bytes written by the request being handled.
    var flashBytesWritten = 0
    /// Registered groups, in registration order.
    let groups: [any ManagementGroup]
    /// The SUIT side of a SUIT device (``DeviceConfiguration/suit``); nil for an MCUboot device.
    var suit: SUITState?

    init(configuration: DeviceConfiguration, time: SMPClock) {
        self.configuration = configuration
        self.time = time
        bootInstant = time.now
        images = (0..<max(1, configuration.imageCount)).map { _ in
            ImagePair(slotSize: configuration.slotSize, mode: configuration.bootloaderMode)
        }
        files = FileTree(
            mountPoint: configuration.mountPoint, capacity: configuration.fileSystemCapacity,
            maximumFiles: configuration.fileSystemMaximumFiles)
        settings = SettingsStore(maximumEntries: configuration.settingsMaximumEntries, maximumBytes: configuration.settingsMaximumBytes)
        clock = DeviceClock(startsSet: configuration.clockStartsSet, time: time)
        var groups: [any ManagementGroup] = [
            OSGroup(), ImageGroup(), StatsGroup(), SettingsGroup(), FSGroup(), ShellGroup(), EnumerationGroup(),
            BasicGroup(), CrashGroup(), RunGroup(),
        ]
        if configuration.offersLogGroup { groups.append(LogGroup()) }
        if let suit = configuration.suit {
            groups.append(SUITGroup())
            self.suit = SUITState(configuration: suit)
        }
        self.groups = groups
        boot()
    }

    /// Time since the last boot.
    var uptime: Duration { time.now - bootInstant }

    /// Uptime in whole milliseconds.
    var uptimeMilliseconds: Int64 { uptime.wholeMilliseconds }

    /// Counts `bytes` written to flash, for the statistics and for the link's flash write time.
    func noteFlashWrite(_ bytes: Int) {
        flashBytesWritten += bytes
        counters.flashBytesWritten += UInt64(bytes)
    }

    /// Adds an entry to the device log.
    func record(_ level: EventLog.Level, _ module: EventLog.Module, _ message: String) {
        let stamp = clock.microsecondsSinceEpoch.map { UInt64(max(0, $0)) } ?? UInt64(uptimeMilliseconds * 1000)
        log.add(level, module, message, timestamp: stamp)
    }

    // MARK: - Boot

    /// Boots: MCUboot decides and performs swaps, then the application starts with fresh RAM.
    @discardableResult
    func boot(reason: String = "power on") -> [ImagePair.BootAction] {
        bootCount += 1
        resetReason = reason
        bootInstant = time.now
        var actions: [ImagePair.BootAction] = []
        for index in images.indices {
            let action = images[index].boot(preventsDowngrade: configuration.preventsDowngrade)
            actions.append(action)
            switch action {
            case .none: break
            case .swappedForTest: record(.info, .boot, "image \(index): swapped in for test")
            case .swappedPermanently: record(.info, .boot, "image \(index): swapped in permanently")
            case .reverted: record(.warn, .boot, "image \(index): test image not confirmed, reverted")
            case .rejected(let why): record(.error, .boot, "image \(index): \(why); secondary slot erased")
            case .overwritten: record(.info, .boot, "image \(index): secondary copied over the primary")
            case .selected(let slot): record(.info, .boot, "image \(index): slot \(slot) selected")
            case .erasedAndSelected: record(.warn, .boot, "image \(index): \(action)")
            case .noBootableImage: record(.error, .boot, "image \(index): no bootable image")
            }
        }
        if !configuration.keepsUploadStateAcrossReset { upload = nil }
        suit?.boot()
        openFile = nil
        settings.reboot()
        record(.info, .os, "boot \(bootCount)")
        record(.info, .os, "reset reason: \(reason)")
        return actions
    }

    // MARK: - Requests

    /// Processes one received buffer: every request in it in turn (smp-reference §1.4).
    func process(_ bytes: [UInt8], transport: Int, startedAt origin: SMPInstant) -> ProcessResult {
        var result = ProcessResult()
        var offset = 0
        effects = []
        flashBytesWritten = 0
        counters.bytesReceived += UInt64(bytes.count)
        while offset < bytes.count {
            // Fewer than 8 bytes: no header, nothing to answer.
            guard let header = RequestHeader(bytes, at: offset) else { break }
            counters.requests += 1
            let available = bytes.count - offset - RequestHeader.size
            let handled: HandlerResult?
            var stop = false
            if header.length > available {
                handled = .status(MgmtError.corrupt)
                stop = true
                offset = bytes.count
            } else {
                let start = offset + RequestHeader.size
                let payload = bytes[start..<start + header.length]
                offset = start + header.length
                handled = handle(Request(header: header, payload: payload, transport: transport, quirks: configuration.quirks))
            }
            let outcome: RequestRecord.Outcome
            if let handled {
                let response = encode(handled, for: header)
                result.responses.append(response)
                counters.responses += 1
                counters.bytesSent += UInt64(response.count)
                outcome = Self.outcome(of: handled)
                if case .status(let rc) = handled, rc != 0 { stop = true }
            } else {
                outcome = .dropped("device fault")
                stop = true
            }
            if case .success = outcome {} else { counters.errors += 1 }
            result.records.append(
                RequestRecord(time: time.now - origin, transport: transport, header: header, packetLength: 0, outcome: outcome))
            if stop { break }
        }
        result.effects = effects
        result.flashBytesWritten = flashBytesWritten
        return result
    }

    /// Dispatches one request; nil means the device sends nothing (a fault fired).
    private func handle(_ request: Request) -> HandlerResult? {
        let header = request.header
        if header.version > 1 { return .status(MgmtError.unsupportedTooNew) }
        if header.version == 0 && !configuration.supportsSMPv1 { return .status(MgmtError.unsupportedTooOld) }
        guard header.isRead || header.isWrite else { return .status(MgmtError.notSupported) }
        guard let group = groups.first(where: { $0.id == header.group }) else {
            return .status(MgmtError.notSupported)
        }
        do {
            guard let result = try group.handle(request, on: self) else { return .status(MgmtError.notSupported) }
            if case .silent = result { return nil }
            if case .groupError(let g, let code, _) = result, header.version == 0 || configuration.quirks.contains(.v1ErrorsOnly) {
                let translator = groups.first(where: { $0.id == g }) ?? group
                return .status(translator.translateForV1(code))
            }
            return result
        } catch {
            return .status(error.code)
        }
    }

    /// Builds the response packet; a response larger than the buffer becomes `{"rc": 7}`.
    private func encode(_ result: HandlerResult, for header: RequestHeader) -> [UInt8] {
        let writer = CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: configuration.usesIndefiniteLengthMaps)
        var payload = writer.encode(Self.map(Self.entries(of: quirked(result, for: header))))
        if RequestHeader.size + payload.count > configuration.bufferSize {
            payload = writer.encode(Self.map([(key: "rc", value: .int(MgmtError.messageSize))]))
        }
        return header.responseBytes(payloadLength: payload.count, quirks: configuration.quirks) + payload
    }

    /// The answer as the quirks in force bend it: a status sent as `err`, an extra `rc` on success.
    private func quirked(_ result: HandlerResult, for header: RequestHeader) -> HandlerResult {
        let quirks = configuration.quirks
        switch result {
        case .status(let rc) where rc != 0 && header.version == 1 && quirks.contains(.statusInErr):
            return .groupError(group: header.group, code: rc, extra: [])
        case .success(let entries) where quirks.contains(.extraKeys):
            return .success(entries + [(key: "rc", value: .int(0))])
        default:
            return result
        }
    }

    /// A `{"rc": code}` response to `header`, as the transport layer answers when it has no buffer.
    func statusResponse(_ code: DeviceErrorCode, for header: RequestHeader) -> [UInt8] {
        counters.errors += 1
        return encode(.status(code), for: header)
    }

    private static func entries(of result: HandlerResult) -> ResponseEntries {
        switch result {
        case .success(let entries):
            return entries
        case .status(let rc):
            return [(key: "rc", value: .int(rc))]
        case .groupError(let group, let code, let extra):
            let err = CBORValue.map([(key: .text("group"), value: .unsigned(UInt64(group))), (key: .text("rc"), value: .int(code))])
            return [(key: "err", value: err)] + extra
        case .silent:
            return []
        }
    }

    static func map(_ entries: ResponseEntries) -> CBORValue {
        .map(entries.map { (key: CBORValue.text($0.key), value: $0.value) })
    }

    private static func outcome(of result: HandlerResult) -> RequestRecord.Outcome {
        switch result {
        case .success: return .success
        case .status(let rc): return rc == 0 ? .success : .status(rc)
        case .groupError(let group, let rc, _): return .groupError(group: group, rc: rc)
        case .silent: return .dropped("device fault")
        }
    }
}
