import SMP
import SMPTestSupport
import Testing

/// Runs `body`, then `cleanup` whatever happens. If `body` is still running after `limit` (times
/// ``TestTimeScale``), the test records an issue and `cleanup` runs early (closing what `body`
/// waits on), so a lost packet over a real socket fails the test instead of hanging the test process.
public func guarded<T>(
    limit: Duration = .seconds(60), cleanup: @escaping @Sendable () async -> Void, _ body: () async throws -> T
) async throws -> T {
    let clock = SMPClock.continuous
    let limit = TestTimeScale.scaled(limit)
    let watchdog = clock.task {
        do { try await clock.sleep(for: limit) } catch { return }
        Issue.record("still waiting after \(limit); closing the link")
        await cleanup()
    }
    defer { watchdog.cancel() }
    do {
        let result = try await body()
        await cleanup()
        return result
    } catch {
        await cleanup()
        throw error
    }
}
