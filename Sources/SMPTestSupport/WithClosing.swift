/// Runs `body` with `resource`, then `close` whatever `body` does (returns or throws): how a test
/// closes what it opened, structurally, instead of leaving the close to a task nobody awaits.
public func withClosing<Resource, Result>(
    _ resource: Resource, close: (Resource) async -> Void, _ body: (Resource) async throws -> Result
) async rethrows -> Result {
    let result: Result
    do {
        result = try await body(resource)
    } catch {
        await close(resource)
        throw error
    }
    await close(resource)
    return result
}
