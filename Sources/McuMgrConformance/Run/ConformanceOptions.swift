/// What a conformance run may do to the device, what it works with, and how long it waits.
public struct ConformanceOptions: Sendable {
    /// Run the checks that upload, erase, or change settings and files (each restores what it
    /// changed) (`--allow-writes`).
    public var allowsWrites = false
    /// Run the checks that reset the device and reconnect (`--allow-reset`).
    public var allowsReset = false
    /// An MCUboot image the device boots and that runs its SMP server (its own firmware, e.g.
    /// re-signed with a higher version): the swap and revert checks upload it and reset into it.
    /// Without one they are skipped; the other upload checks use a small image made for the run.
    public var bootableImage: [UInt8]?
    /// An existing file the file-system checks may overwrite (its contents are read first and
    /// written back); without one they are skipped (the FS group cannot delete a file).
    public var filePath: String?
    /// A settings key the settings checks may write (its value is read first and restored, or
    /// the key deleted when it did not exist); without one they are skipped.
    public var settingsKey: String?
    /// How long to wait for each answer.
    public var timeout: Duration = .seconds(5)
    /// How many times a read is resent after a timeout.
    public var retries = 2
    /// How long a reset device may take to answer again (booting, swapping images).
    public var bootTimeout: Duration = .seconds(60)
    /// Only the checks whose name is one of these or starts with one followed by `.` (a family);
    /// empty for all.
    public var only: [String] = []
    /// The link finds where a packet ends by its SMP length field (BLE's reassembly, raw serial):
    /// the checks that lie in that field are skipped, as the lie is then about the link.
    public var linkDelimitsByLength = false
    /// Keep the packets of each check in its result (hex evidence).
    public var keepsEvidence = true

    /// Makes the default options: reads only, 5 s per answer, 2 retries, 60 s to boot.
    public init() {}

    /// Whether `check` is selected by ``only``.
    func selects(_ check: ConformanceCheck) -> Bool {
        only.isEmpty || only.contains { check.id == $0 || check.id.hasPrefix($0 + ".") }
    }

    /// Why `check` may not run with these options, or `nil` when it may.
    func withheld(_ check: ConformanceCheck) -> String? {
        switch check.access {
        case .readOnly: return nil
        case .writes: return allowsWrites ? nil : "needs --allow-writes"
        case .reset: return allowsReset ? nil : "needs --allow-reset"
        case .writesAndReset:
            if !allowsWrites || !allowsReset { return "needs --allow-writes and --allow-reset" }
            return nil
        }
    }
}
