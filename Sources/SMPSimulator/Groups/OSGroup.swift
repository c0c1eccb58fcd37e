import CBOR

/// Group 0, OS management (smp-reference §3.1).
struct OSGroup: ManagementGroup {
    let id: UInt16 = 0
    let name = "os mgmt"
    let handlerCount = 9

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        let documented = device.configuration.answersDocumentedOSCommands
        switch (request.header.command, request.isRead) {
        case (0, let isRead) where !(isRead && device.configuration.quirks.contains(.echoWriteOnly)): return try echo(request)
        case (1, false) where documented: return try consoleEcho(request)
        case (2, true): return taskStatistics(device)
        case (3, true) where documented: return memoryPoolStatistics()
        case (4, true): return dateTime(device)
        case (4, false): return try setDateTime(request, device)
        case (5, false): return reset(device)
        case (6, true): return parameters(device)
        case (7, true): return try info(request, device)
        case (8, true): return try bootloaderInfo(request, device)
        default: return nil
        }
    }

    private func echo(_ request: Request) throws(StatusError) -> HandlerResult {
        guard let text = try request.fields().text("d") else { throw StatusError(MgmtError.invalid) }
        return .success([(key: "r", value: .text(text))])
    }

    /// Console echo control: `echo` is required; the device has no console whose echo it would change.
    private func consoleEcho(_ request: Request) throws(StatusError) -> HandlerResult {
        guard try request.fields().integer("echo") != nil else { throw StatusError(MgmtError.invalid) }
        return .empty
    }

    private func taskStatistics(_ device: DeviceCore) -> HandlerResult {
        let cycles = UInt64(max(0, device.uptimeMilliseconds)) * 1000
        let threads: [(name: String, prio: UInt64, stackUse: UInt64, stackSize: UInt64, share: UInt64)] = [
            ("idle", 15, 16, 80, 70),
            ("main", 0, 210, 512, 5),
            ("sysworkq", 0, 150, 256, 5),
            ("mcumgr smp", 3, 600, 1024, 15),
            ("logging", 14, 90, 192, 5),
        ]
        var tasks: [(key: CBORValue, value: CBORValue)] = []
        for (tid, thread) in threads.enumerated() {
            let stats = DeviceCore.map([
                (key: "prio", value: .unsigned(thread.prio)),
                (key: "tid", value: .unsigned(UInt64(tid))),
                (key: "state", value: .unsigned(thread.name == "mcumgr smp" ? 0 : 1)),
                (key: "stkuse", value: .unsigned(thread.stackUse)),
                (key: "stksiz", value: .unsigned(thread.stackSize)),
                (key: "cswcnt", value: .unsigned(0)),
                (key: "runtime", value: .unsigned(cycles * thread.share / 100)),
                (key: "last_checkin", value: .unsigned(0)),
                (key: "next_checkin", value: .unsigned(0)),
            ])
            tasks.append((key: .text(thread.name), value: stats))
        }
        return .success([(key: "tasks", value: .map(tasks))])
    }

    private func memoryPoolStatistics() -> HandlerResult {
        func pool(_ size: UInt64, _ count: UInt64, _ free: UInt64, _ minimum: UInt64) -> CBORValue {
            DeviceCore.map([
                (key: "blksiz", value: .unsigned(size)), (key: "nblks", value: .unsigned(count)),
                (key: "nfree", value: .unsigned(free)), (key: "min", value: .unsigned(minimum)),
            ])
        }
        return .success([(key: "heap", value: pool(8, 2048, 1536, 1200)), (key: "netbuf", value: pool(2048, 4, 4, 1))])
    }

    private func dateTime(_ device: DeviceCore) -> HandlerResult {
        guard let now = device.clock.now else { return .error(id, OSError.rtcNotSet) }
        return .success([(key: "datetime", value: .text(now.formatted(withMilliseconds: device.configuration.datetimeHasMilliseconds)))])
    }

    private func setDateTime(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        guard let text = try request.fields().text("datetime"), let time = CivilTime(parsing: text) else {
            throw StatusError(MgmtError.invalid)
        }
        device.clock.set(time)
        device.record(.info, .os, "clock set to \(time.formatted(withMilliseconds: true))")
        return .empty
    }

    private func reset(_ device: DeviceCore) -> HandlerResult {
        // `force` only matters to a reset hook, and its decode errors are ignored.
        device.effects.append(.resetRequested)
        device.record(.info, .os, "reset requested")
        return .empty
    }

    private func parameters(_ device: DeviceCore) -> HandlerResult {
        .success([
            (key: "buf_size", value: .int(device.configuration.reportedBufferSize ?? device.configuration.bufferSize)),
            (key: "buf_count", value: .int(device.configuration.reportedBufferCount ?? device.configuration.bufferCount)),
        ])
    }

    private func info(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let format = request.payload.isEmpty ? nil : try request.fields().text("format")
        let c = device.configuration
        // Items in their fixed order: s n r v b m p i o.
        let items: [(Character, String)] = [
            ("s", "Zephyr"), ("n", c.nodeName), ("r", "v\(c.kernelVersion)-sim"), ("v", c.kernelVersion),
            ("b", "Jan  1 2024 00:00:00"), ("m", "posix"), ("p", "native"), ("i", c.board), ("o", "Zephyr"),
        ]
        var selected = Set<Character>()
        let text = (format?.isEmpty ?? true) ? "s" : format!
        for ch in text {
            if ch == "a" {
                selected.formUnion(items.map(\.0))
            } else if items.contains(where: { $0.0 == ch }) {
                selected.insert(ch)
            } else {
                return .error(id, OSError.invalidFormat)
            }
        }
        let output = items.filter { selected.contains($0.0) }.map(\.1).joined(separator: " ")
        return .success([(key: "output", value: .text(output))])
    }

    private func bootloaderInfo(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let query = request.payload.isEmpty ? nil : try request.fields().text("query")
        guard let query, !query.isEmpty else { return .success([(key: "bootloader", value: .text("MCUboot"))]) }
        guard query == "mode" else { return .error(id, OSError.queryYieldsNoAnswer) }
        var entries: ResponseEntries = [(key: "mode", value: .int(device.configuration.bootloaderMode.rawValue))]
        if device.configuration.preventsDowngrade { entries.append((key: "no-downgrade", value: .bool(true))) }
        return .success(entries)
    }
}
