import Synchronization

/// Hands out the given strings in order (the last one repeats).
final class TextQueue: Sendable {
    private let state: Mutex<[String]>
    init(_ values: [String]) { state = .init(values) }
    func next() -> String { state.withLock { $0.count > 1 ? $0.removeFirst() : ($0.first ?? "") } }
}
