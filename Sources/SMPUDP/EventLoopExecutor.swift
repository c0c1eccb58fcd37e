import Synchronization
import NIOCore
import NIOPosix

extension UDPTransport {
    /// For a command-line program: makes SwiftNIO's singleton event loop group one thread and
    /// installs it as Swift concurrency's global executor, so the session, the upload engine and
    /// the UDP socket all run on that thread. Without it every packet crosses threads several
    /// times (the event loop hands each write completion and each datagram to the concurrency
    /// pool, and the pool hands each write to the event loop); with it they are calls on one thread.
    ///
    /// Call it once, first thing in `main`, before any task starts and before anything touches
    /// `MultiThreadedEventLoopGroup.singleton`. Nothing may block the global executor afterwards
    /// (transports that block, such as serial and BLE, do so on threads of their own). Returns
    /// whether the executor was installed.
    ///
    /// Transports made afterwards on the singleton group offer its loop as their
    /// ``boundExecutor``, so their sessions handle each datagram inside the read that received it.
    @discardableResult
    public static func runConcurrencyOnOneEventLoopThread() -> Bool {
        NIOSingletons.groupLoopCountSuggestion = 1
        let installed = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        if installed { concurrencyRunsOnSingletonLoop.store(true, ordering: .relaxed) }
        return installed
    }

    /// Whether ``runConcurrencyOnOneEventLoopThread()`` installed the singleton loop as Swift
    /// concurrency's global executor.
    static let concurrencyRunsOnSingletonLoop = Atomic<Bool>(false)
}
