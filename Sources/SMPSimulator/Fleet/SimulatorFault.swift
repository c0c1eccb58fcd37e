import SMP

/// A fault one device of a simulated fleet has (`mcumgr-sim --devices N --faulty K`), as a change
/// of its device and fault configuration.
public enum SimulatorFault: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Drops a share of the packets in both directions (``SimulatorFaultParameters/dropPercent``).
    case drops = "drop"
    /// Resets (without answering) in the middle of an image upload, once, and then takes
    /// ``SimulatorFaultParameters/slowBootDuration`` to boot, as after a watchdog reset.
    case resetsMidUpload = "reset"
    /// Answers busy (`MGMT_ERR_EBUSY`) to its first ``SimulatorFaultParameters/busyAnswers``
    /// image requests, as a device busy writing external flash.
    case busy
    /// Refuses every image upload at its first chunk (`MGMT_ERR_EACCESSDENIED`, an application's
    /// upload check hook).
    case refusesImage = "refuse"
    /// Never answers again after its next reset.
    case staysDownAfterReset = "no-return"

    /// The faults `--faulty K` deals out, in turn: drop, reset, busy, refuse.
    public static let mix: [SimulatorFault] = [.drops, .resetsMidUpload, .busy, .refusesImage]

    /// Changes `configuration` and `faults` to give a device this fault.
    public func apply(
        to configuration: inout DeviceConfiguration, faults: inout FaultConfiguration, parameters: SimulatorFaultParameters
    ) {
        switch self {
        case .drops:
            faults.dropPercent = parameters.dropPercent
        case .resetsMidUpload:
            faults.resetAtUploadOffset = parameters.resetOffset
            configuration.bootDuration = parameters.slowBootDuration
        case .busy:
            faults.busyImageRequests = parameters.busyAnswers
        case .refusesImage:
            faults.refusesImageUploads = true
        case .staysDownAfterReset:
            faults.staysDownAfterReset = true
        }
    }

    /// What the fault does, with `parameters`: e.g. `drops 30 % of packets`.
    public func summary(_ parameters: SimulatorFaultParameters) -> String {
        switch self {
        case .drops:
            return "drops \(Self.number(parameters.dropPercent)) % of packets"
        case .resetsMidUpload:
            return "resets at upload offset \(parameters.resetOffset), then boots for \(parameters.slowBootDuration)"
        case .busy:
            return "answers busy to its first \(parameters.busyAnswers) image requests"
        case .refusesImage:
            return "refuses every image upload (rc 11, app reject)"
        case .staysDownAfterReset:
            return "never answers again after its next reset"
        }
    }

    /// The name `--device-fault` takes: drop, reset, busy, refuse, no-return.
    public var description: String { rawValue }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))" : "\(value)"
    }
}

/// How strong each ``SimulatorFault`` is.
public struct SimulatorFaultParameters: Sendable, Hashable {
    /// Percent of packets a ``SimulatorFault/drops`` device drops (each direction).
    public var dropPercent: Double
    /// The upload offset at which a ``SimulatorFault/resetsMidUpload`` device resets.
    public var resetOffset: Int
    /// How long a ``SimulatorFault/resetsMidUpload`` device takes to boot (every boot).
    public var slowBootDuration: Duration
    /// How many image requests a ``SimulatorFault/busy`` device answers busy.
    public var busyAnswers: Int

    /// Makes parameters; by default 30 % drops, a reset 64 KiB into the upload and a 20 s boot,
    /// and 150 busy answers (more than one upgrade's 120 s step timeout rides out).
    public init(dropPercent: Double = 30, resetOffset: Int = 64 * 1024, slowBootDuration: Duration = .seconds(20), busyAnswers: Int = 150) {
        self.dropPercent = dropPercent
        self.resetOffset = resetOffset
        self.slowBootDuration = slowBootDuration
        self.busyAnswers = busyAnswers
    }
}

/// Which devices of a fleet of `count` get which fault: `faulty` devices chosen by a seeded
/// shuffle (the same seed gives the same choice), dealt ``SimulatorFault/mix`` in turn, and any
/// explicit assignments on top.
public struct SimulatorFaultPlan: Sendable, Hashable {
    /// The fault of each faulty device, by device index.
    public let faults: [Int: SimulatorFault]

    /// Chooses the faulty devices; `explicit` faults (by index) replace chosen ones and add to them.
    public init(count: Int, faulty: Int, seed: UInt64, explicit: [Int: SimulatorFault] = [:]) {
        var random = SeededRandom(seed: seed)
        var indices = Array(0..<max(0, count))
        indices.shuffle(using: &random)
        var faults: [Int: SimulatorFault] = [:]
        for (turn, index) in indices.prefix(max(0, min(faulty, count))).enumerated() {
            faults[index] = SimulatorFault.mix[turn % SimulatorFault.mix.count]
        }
        for (index, fault) in explicit where (0..<count).contains(index) {
            faults[index] = fault
        }
        self.faults = faults
    }

    /// The fault of device `index`, if it has one.
    public subscript(index: Int) -> SimulatorFault? { faults[index] }
}
