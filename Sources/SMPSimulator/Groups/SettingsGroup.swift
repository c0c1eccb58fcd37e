/// Group 3, settings (smp-reference §3.4) over the device's settings store.
struct SettingsGroup: ManagementGroup {
    let id: UInt16 = 3
    let name = "settings mgmt"
    let handlerCount = 4

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        switch (request.header.command, request.isRead) {
        case (0, true): return try read(request, device)
        case (0, false): return try write(request, device)
        case (1, false): return try delete(request, device)
        case (2, false): return .empty
        case (3, true):
            device.settings.load()
            return .empty
        case (3, false):
            let subtree = request.payload.isEmpty ? nil : try request.fields().text("name")
            device.settings.save(subtree: subtree.flatMap { $0.isEmpty ? nil : $0 })
            device.record(.info, .settings, "settings saved")
            return .empty
        default:
            return nil
        }
    }

    /// The validated name, or the error to answer.
    private func name(_ fields: RequestFields, _ device: DeviceCore) throws(StatusError) -> NameCheck {
        guard let name = try fields.text("name"), !name.isEmpty else { throw StatusError(MgmtError.invalid) }
        guard name.utf8.count < device.configuration.settingsNameLimit else {
            return .refused(.error(id, SettingsError.keyTooLong))
        }
        if let roots = device.configuration.settingsRoots {
            let root = String(name.split(separator: "/", maxSplits: 1).first ?? "")
            guard roots.contains(root) else { return .refused(.error(id, SettingsError.rootKeyNotFound)) }
        }
        return .valid(name)
    }

    private func read(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        let limit = device.configuration.settingsValueLimit
        let requested = try fields.unsigned("max_size")
        let name: String
        switch try self.name(fields, device) {
        case .valid(let n): name = n
        case .refused(let answer): return answer
        }
        guard let value = device.settings.value(named: name) else { return .error(id, SettingsError.keyNotFound) }
        let clamped = requested.map { $0 > UInt64(limit) } ?? false
        let size = requested.map { Int(min($0, UInt64(limit))) } ?? limit
        var entries: ResponseEntries = [(key: "val", value: .bytes(Array(value.prefix(size))))]
        if clamped { entries.append((key: "max_size", value: .int(limit))) }
        return .success(entries)
    }

    private func write(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        let name: String
        switch try self.name(fields, device) {
        case .valid(let n): name = n
        case .refused(let answer): return answer
        }
        guard let value = try fields.bytes("val") else { throw StatusError(MgmtError.invalid) }
        // No room for it: the settings group answers MGMT_ERR_ENOMEM, as when it cannot allocate.
        guard device.settings.set(value, named: name) else {
            device.record(.warn, .settings, "no room for setting \(name)")
            return .status(MgmtError.noMemory)
        }
        return .empty
    }

    private func delete(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        switch try self.name(fields, device) {
        case .valid(let name):
            device.settings.delete(named: name)
            return .empty
        case .refused(let answer):
            return answer
        }
    }

    /// A settings name that passed the checks, or the answer refusing it.
    private enum NameCheck {
        case valid(String)
        case refused(HandlerResult)
    }
}
