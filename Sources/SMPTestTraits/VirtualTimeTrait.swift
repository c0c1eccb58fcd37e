import SMPTestSupport
import Testing

/// Runs each test of a suite on its own `VirtualRuntime`: fixtures take `VirtualRuntime.currentClock`,
/// so link latencies, timeouts, back-offs and reset waits take no wall-clock time and do not
/// depend on the machine's speed.
public struct VirtualTimeTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Makes the trait.
    public init() {}

    /// Runs one test case on a fresh runtime.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await VirtualRuntime().run { _ in try await function() }
    }
}

extension Trait where Self == VirtualTimeTrait {
    /// Virtual time for every test (see ``VirtualTimeTrait``).
    public static var virtualTime: Self { VirtualTimeTrait() }
}
