/// Group 7, Mynewt's run-test group (`test/runtest`): command 0 runs a test suite by name (`testname`,
/// empty or `all` for every suite; `token` is added to the log lines), command 1 lists the suites
/// (`run_list`). An unknown suite is `ENOENT`. The results go to the device log.
struct RunGroup: ManagementGroup {
    let id: UInt16 = 7
    let name = "run mgmt"
    let handlerCount = 2

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        switch (request.header.command, request.isWrite) {
        case (0, true):
            let fields = try request.fields()
            let name = try fields.text("testname") ?? ""
            let token = try fields.text("token").map { " [\($0)]" } ?? ""
            let suites = device.configuration.testSuites
            let selected = name.isEmpty || name == "all" ? suites : suites.filter { $0 == name }
            guard !selected.isEmpty else { throw StatusError(MgmtError.noEntry) }
            for suite in selected { device.record(.info, .default, "test suite \(suite) passed\(token)") }
            return .empty
        case (1, false):
            return .success([(key: "run_list", value: .array(device.configuration.testSuites.map { .text($0) }))])
        default:
            return nil
        }
    }
}
