import Testing

/// Runs each test of a suite at background priority: for CPU-heavy tests (fuzzing, every
/// prefix of every vector), so that on a machine with few cores the tests that wait on real
/// sockets, ptys and processes are served first and stay well inside their time limits.
public struct BackgroundPriorityTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Makes the trait.
    public init() {}

    /// Runs one test case in a background-priority task.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        // The task is awaited before this function returns, so `function` does not really escape.
        try await withoutActuallyEscaping(function) { body in
            try await Task(priority: .background) { try await body() }.value
        }
    }
}

extension Trait where Self == BackgroundPriorityTrait {
    /// Background priority for a CPU-heavy test (see ``BackgroundPriorityTrait``).
    public static var cpuHeavy: Self { BackgroundPriorityTrait() }
}
