/// Group 63, Zephyr basic (smp-reference §3.8): erasing the storage partition clears the persisted
/// settings and the file system that live in it.
struct BasicGroup: ManagementGroup {
    let id: UInt16 = 63
    let name = "zephyr basic mgmt"
    let handlerCount = 1

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        guard request.header.command == 0, request.isWrite else { return nil }
        device.settings.eraseStorage()
        device.files.format()
        device.openFile = nil
        device.counters.flashErases += 1
        device.record(.warn, .os, "storage partition erased")
        return .empty
    }
}
