import CBOR

/// Group 10, enumeration (smp-reference §3.7): the groups this device registers.
struct EnumerationGroup: ManagementGroup {
    let id: UInt16 = 10
    let name = "enum mgmt"
    let handlerCount = 4

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        let groups = device.groups
        switch (request.header.command, request.isRead) {
        case (0, true):
            return .success([(key: "count", value: .int(groups.count))])
        case (1, true):
            return .success([(key: "groups", value: .array(groups.map { .unsigned(UInt64($0.id)) }))])
        case (2, true):
            let index = request.payload.isEmpty ? 0 : try request.fields().unsigned("index") ?? 0
            guard index < UInt64(groups.count) else { return .error(id, EnumError.indexTooLarge) }
            var entries: ResponseEntries = [(key: "group", value: .unsigned(UInt64(groups[Int(index)].id)))]
            if Int(index) == groups.count - 1 { entries.append((key: "end", value: .bool(true))) }
            return .success(entries)
        case (3, true):
            return try details(request, groups)
        default:
            return nil
        }
    }

    private func details(_ request: Request, _ groups: [any ManagementGroup]) throws(StatusError) -> HandlerResult {
        var filter: Set<UInt16>?
        if !request.payload.isEmpty, let wanted = try request.fields().array("groups") {
            guard wanted.count <= groups.count else { return .error(id, EnumError.tooManyGroupEntries) }
            var ids = Set<UInt16>()
            for item in wanted {
                guard case .unsigned(let n) = item, let g = UInt16(exactly: n) else { throw StatusError(MgmtError.invalid) }
                ids.insert(g)
            }
            filter = ids
        }
        let list: [CBORValue] = groups.filter { filter?.contains($0.id) ?? true }.map { group in
            DeviceCore.map([
                (key: "group", value: .unsigned(UInt64(group.id))), (key: "name", value: .text(group.name)),
                (key: "handlers", value: .int(group.handlerCount)),
            ])
        }
        return .success([(key: "groups", value: .array(list))])
    }
}
