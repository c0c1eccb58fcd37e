import CBOR

/// Group 4, logs in the Apache Mynewt shape (smp-reference §3.10), fed by the device's own events.
struct LogGroup: ManagementGroup {
    let id: UInt16 = 4
    let name = "log mgmt"
    let handlerCount = 5

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        switch (request.header.command, request.isRead) {
        case (0, true): return try show(request, device)
        case (1, false):
            device.log.clear()
            return .empty
        case (3, true):
            let modules = EventLog.Module.allCases.map { (key: CBORValue.text($0.name), value: CBORValue.int($0.rawValue)) }
            return .success([(key: "module_map", value: .map(modules))])
        case (4, true):
            return .success([(key: "level_map", value: .array(EventLog.Level.allCases.map { .text($0.name) }))])
        case (5, true):
            return .success([(key: "log_list", value: .array([.text(EventLog.name)]))])
        default:
            return nil
        }
    }

    private func show(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = request.payload.isEmpty ? nil : try request.fields()
        let logName = try fields?.text("log_name")
        let index = try fields?.unsigned("index") ?? 0
        var since: UInt64?
        if fields?.has("index") == true, let ts = fields?.value("ts") {
            switch ts {
            case .unsigned(let us): since = us
            case .text(let text):
                guard let time = CivilTime(parsing: text) else { throw StatusError(MgmtError.invalid) }
                since = UInt64(max(0, time.millisecondsSinceEpoch * 1000))
            default: throw StatusError(MgmtError.invalid)
            }
        }
        if let logName, logName != EventLog.name { return .status(MgmtError.noEntry) }
        // Entries until the response would fill the buffer.
        let budget = device.configuration.bufferSize - RequestHeader.size - 64
        var used = 0
        var entries: [CBORValue] = []
        var next = index
        for entry in device.log.entries where entry.index >= index && entry.timestamp >= (since ?? 0) {
            let item = DeviceCore.map([
                (key: "msg", value: .bytes(Array(entry.message.utf8))),
                (key: "ts", value: .unsigned(entry.timestamp)),
                (key: "level", value: .int(entry.level.rawValue)),
                (key: "index", value: .unsigned(entry.index)),
                (key: "module", value: .int(entry.module.rawValue)),
            ])
            let size = item.cborBytes.count
            if used + size > budget { break }
            used += size
            entries.append(item)
            next = entry.index + 1
        }
        if entries.isEmpty { next = max(index, device.log.nextIndex) }
        let log = DeviceCore.map([
            (key: "name", value: .text(EventLog.name)), (key: "type", value: .int(1)),
            (key: "entries", value: .array(entries)),
        ])
        return .success([(key: "next_index", value: .unsigned(next)), (key: "logs", value: .array([log]))])
    }
}
