import Foundation

/// What one run of the BLE VM left: the guest script's exit status and output, the files it wrote
/// under `$BLEVM_OUT`, the guest's console and kernel log, and how long the boot and the run took.
public struct BlueZVMResult: Sendable, CustomStringConvertible {
    /// The host directory of the run's results (see scripts/blevm/run.sh).
    public let directory: URL
    /// The guest script's exit status.
    public let status: Int32

    /// Makes the result of the run whose results are in `directory`.
    public init(directory: URL, status: Int32) {
        self.directory = directory
        self.status = status
    }

    /// What the script wrote on standard output.
    public var stdout: String { text(at: "stdout") ?? "" }
    /// What the script wrote on standard error.
    public var stderr: String { text(at: "stderr") ?? "" }
    /// The guest's kernel log at the end of the run.
    public var dmesg: String { text(at: "dmesg") ?? "" }
    /// The accelerator and the seconds to boot and to run, one per line.
    public var timing: String { text(at: "timing") ?? "" }

    /// The file the script wrote at `path` under `$BLEVM_OUT` (e.g. `checks/scan.out`), as text.
    public func file(_ path: String) -> String? { text(at: "files/" + path) }

    /// The paths of the files the script wrote under `$BLEVM_OUT`, sorted.
    public var files: [String] {
        let root = directory.appendingPathComponent("files")
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        let prefix = root.standardizedFileURL.path + "/"
        return enumerator.compactMap { item -> String? in
            guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { return nil }
            return String(url.standardizedFileURL.path.dropFirst(prefix.count))
        }.sorted()
    }

    /// The status, the timing and both outputs, for failure messages.
    public var description: String { "exit \(status) (\(timing.split(separator: "\n").joined(separator: ", ")))\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }

    private func text(at path: String) -> String? {
        try? String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
    }
}
