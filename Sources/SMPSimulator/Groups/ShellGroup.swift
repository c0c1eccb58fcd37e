/// Group 9, shell (smp-reference §3.6): runs a few built-in commands and captures their output.
struct ShellGroup: ManagementGroup {
    let id: UInt16 = 9
    let name = "shell mgmt"
    let handlerCount = 1

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        guard request.header.command == 0, request.isWrite else { return nil }
        guard let argv = try request.fields().array("argv") else { throw StatusError(MgmtError.invalid) }
        var words: [String] = []
        for item in argv {
            guard case .text(let word) = item else { throw StatusError(MgmtError.invalid) }
            words.append(word)
        }
        let line = words.joined(separator: " ")
        guard line.utf8.count < device.configuration.shellCommandLimit else {
            return .error(id, ShellError.commandTooLong)
        }
        let parts = line.split(separator: " ").map(String.init)
        guard !parts.isEmpty else { return .error(id, ShellError.emptyCommand) }
        let (output, ret) = ShellCommands.run(parts, on: device)
        return .success([(key: "o", value: .text(output)), (key: "ret", value: .int(ret))])
    }
}
