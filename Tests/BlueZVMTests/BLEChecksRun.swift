import Foundation
import SMPTestSupport
import Testing

/// One boot of the BLE VM running every check of scripts/blevm/ble-checks.sh, shared by the
/// tests of ``BlueZVMTests`` (a boot under TCG costs minutes of CPU: the tests read its results).
enum BLEChecksRun {
    /// The run, started by the first test that asks for it.
    private static let run = Task { () throws -> BlueZVMResult in
        let inputs = try Subprocess.temporaryDirectory("blevm-inputs")
        let made = try await Subprocess.run(BlueZVM.scripts.appendingPathComponent("ble-inputs.sh").path, [inputs.path], timeout: .seconds(300))
        guard made.status == 0 else { throw ProcessError("scripts/blevm/ble-inputs.sh failed:\n\(made)") }
        return try await BlueZVM.run(
            script: BlueZVM.scripts.appendingPathComponent("ble-checks.sh"),
            inputs: [
                inputs.appendingPathComponent("image-a.bin"), inputs.appendingPathComponent("image-b.bin"),
                inputs.appendingPathComponent("python.tar"),
            ], timeout: .seconds(2400))
    }

    /// The run's result. When the VM could not run (the image did not build, qemu failed), the
    /// calling test is cancelled with that reason, in one line.
    static func result() async throws -> BlueZVMResult {
        do {
            return try await run.value
        } catch let error as BlueZVMUnavailable {
            try Test.cancel("\(error)")
        }
    }

    /// Expects that each of `checks` passed in `result`, with the check's output when it did not.
    static func expectPassed(_ checks: [String], in result: BlueZVMResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for check in checks {
            let status = result.file("checks/\(check).status")?.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(
                status == "0",
                "check \(check): status \(status ?? "missing (the script stopped before it)")\n\(result.file("checks/\(check).out") ?? "")\(result.file("checks/\(check).err") ?? "")\n\(result)",
                sourceLocation: sourceLocation)
        }
    }
}
