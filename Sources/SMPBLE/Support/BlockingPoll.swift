#if canImport(Glibc)
import Glibc
#endif
import POSIXThreads
import SMP
import Synchronization

/// Waits on a blocking file descriptor (a BlueZ socket) on a thread of its own, so that no task of
/// the concurrency pool blocks; the time limit runs on an `SMPClock` and wakes the thread through a pipe.
enum BlockingPoll {
    /// How a wait ended.
    enum Outcome: Equatable {
        /// `onReady` asked to stop.
        case finished
        /// The time limit passed.
        case timedOut
        /// `poll` failed with this errno.
        case failed(Int32)
    }

    /// Polls `descriptor` for `events`, calling `onReady` with the returned events each time it is
    /// ready, until `onReady` returns false or `timeout` passes on `clock`.
    static func loop(
        _ descriptor: Int32, events: Int16, timeout: Duration, clock: SMPClock,
        onReady: @escaping @Sendable (Int16) -> Bool
    ) async -> Outcome {
        guard let wake = WakePipe() else { return .failed(errno) }
        let timer = clock.task {
            do { try await clock.sleep(for: timeout) } catch { return }
            wake.signal()
        }
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            do throws(DetachedThread.StartError) {
                try DetachedThread.start(name: "bluez-poll") {
                    var fds = [pollfd(fd: descriptor, events: events, revents: 0), pollfd(fd: wake.reader, events: Int16(POLLIN), revents: 0)]
                    while true {
                        fds[0].revents = 0
                        fds[1].revents = 0
                        if poll(&fds, 2, -1) < 0 {
                            if errno == EINTR { continue }
                            continuation.resume(returning: .failed(errno))
                            return
                        }
                        if fds[1].revents != 0 {
                            continuation.resume(returning: .timedOut)
                            return
                        }
                        if fds[0].revents != 0, !onReady(fds[0].revents) {
                            continuation.resume(returning: .finished)
                            return
                        }
                    }
                }
            } catch {
                continuation.resume(returning: .failed(error.code))
            }
        }
        timer.cancel()
        wake.close()
        return outcome
    }
}

/// A self-pipe whose write end is closed only under a lock, so a late timer never writes to a reused descriptor.
private final class WakePipe: Sendable {
    let reader: Int32
    private let writer: Mutex<Int32>

    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        reader = ends[0]
        writer = Mutex(ends[1])
    }

    func signal() {
        writer.withLock { fd in
            guard fd >= 0 else { return }
            var one: UInt8 = 1
            _ = write(fd, &one, 1)
        }
    }

    func close() {
        writer.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
        _ = Glibc.close(reader)
    }
}
