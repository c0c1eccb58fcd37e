import SMPTestTraits
import McuMgr
import SMP
import Testing

@Suite("ShellManager against the simulator", .virtualTime)
struct ShellManagerTests {
    @Test func echoPrintsItsArguments() async throws {
        try await ManagerHarness.with { h async throws in
            let result = try await h.shell.execute(["echo", "hello", "world"])
            #expect(result == ShellResult(output: "hello world\n", returnCode: 0))
        }
    }

    @Test func kernelVersionReportsTheConfiguredVersion() async throws {
        try await ManagerHarness.with({ $0.kernelVersion = "4.0.0" }) { h async throws in
            #expect(try await h.shell.execute(["kernel", "version"]).output == "Zephyr version 4.0.0\n")
        }
    }

    @Test func anUnknownCommandIsAResultNotAnError() async throws {
        try await ManagerHarness.with { h async throws in
            let result = try await h.shell.execute(["frobnicate"])
            #expect(result.returnCode < 0)
            #expect(result.output.contains("command not found"))
        }
    }

    @Test func emptyAndTooLongCommandLinesAreShellErrors() async throws {
        try await ManagerHarness.with({ $0.shellCommandLimit = 16 }) { h async throws in
            let empty = await deviceError { _ = try await h.shell.execute([""]) }
            #expect(empty == .shell(.emptyCommand))
            #expect(empty?.description.contains("SHELL_MGMT_ERR_EMPTY_COMMAND") == true)
            let long = await deviceError { _ = try await h.shell.execute(["echo", String(repeating: "x", count: 40)]) }
            #expect(long == .shell(.commandTooLong))
        }
    }
}
