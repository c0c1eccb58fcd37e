import SMP

/// The crash tests of Mynewt's crash group (5), by the names the Go `mcumgr crash` command takes.
public enum CrashTest: String, Sendable, CaseIterable, Codable {
    /// Divide by zero.
    case div0
    /// Jump to address 0.
    case jump0
    /// Read through a null pointer.
    case ref0
    /// A failed `assert`.
    case assert
    /// Spin with interrupts off until the watchdog resets the device.
    case wdog
}

/// Makes the device crash (crash command 0): `{"t": test}`.
public struct CrashRequest: SMPRequest {
    /// No fields (a device that crashes at once sends none at all).
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The crash group.
    public static var group: SMPGroup { .crash }
    /// Command 0.
    public static var command: UInt8 { 0 }
    /// The test.
    public var t: CrashTest

    /// Makes the request.
    public init(test: CrashTest) { t = test }
}
