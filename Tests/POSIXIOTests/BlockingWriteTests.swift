import Glibc
import Synchronization
import Testing

@testable import POSIXIO

/// Signals the interrupted-write test's handler has seen.
private let interruptions = Atomic<Int>(0)

/// The one write-all: full non-blocking pipes, slow readers, signals during a blocked write.
@Suite("BlockingWrite: every byte, under the one write policy")
struct BlockingWriteTests {
    @Test("a full non-blocking pipe drained slowly: EAGAIN waits, partial writes continue, every byte arrives in order")
    func slowReader() async throws {
        let (reader, writer) = try Descriptors.pipe(nonBlockingWriter: true)
        // Full before the write starts: its first attempt must be EAGAIN.
        let before = Descriptors.fill(writer) { _ in [UInt8](repeating: 0xEE, count: 4096) }
        #expect(write(writer, [UInt8]([1]), 1) == -1 && errno == EAGAIN)
        let message = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        async let drained = DetachedThread.run(name: "test-slow-reader") { Self.readToEnd(reader, piece: 512) }
        let outcome = await DetachedThread.run(name: "test-writer") { () -> SystemCallError? in
            defer { close(writer) }
            do throws(SystemCallError) {
                try BlockingWrite.all(message, to: writer)
                return nil
            } catch {
                return error
            }
        }
        #expect(outcome == nil)
        #expect(await drained == before + message)
        close(reader)
    }

    @Test("a signal while blocked in write on a full blocking pipe (EINTR, no SA_RESTART): the write is made again and completes")
    func interruptedWrite() async throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // no SA_RESTART: the blocked write returns EINTR
        var previous = sigaction()
        try #require(sigaction(SIGUSR1, &action, &previous) == 0)
        let seenBefore = interruptions.load(ordering: .relaxed)
        // The default action of SIGUSR1 ends the process: put it back only once the signal is handled.
        defer { if interruptions.load(ordering: .relaxed) > seenBefore { sigaction(SIGUSR1, &previous, nil) } }

        let (reader, writer) = try Descriptors.pipe(nonBlockingWriter: false)
        let before = Descriptors.fill(writer) { _ in [UInt8](repeating: 0xEE, count: 4096) }
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) & ~O_NONBLOCK)
        let message = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let writerThread = Shared<(thread: pthread_t, task: Int32)?>(nil)
        let outcome = Shared<Result<Void, SystemCallError>?>(nil)
        // A thread of its own at once (not through a task, which a busy pool may start late); it
        // closes its end when done, so that the drain below ends whatever happened.
        try DetachedThread.start(name: "test-blocked") {
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            writerThread.value = (pthread_self(), Self.threadID())
            outcome.value = Result { () throws(SystemCallError) in try BlockingWrite.all(message, to: writer) }
            close(writer)
        }
        var gaveUp: (any Error)?
        do {
            try await Descriptors.waitUntil("the writer thread started") { writerThread.value != nil }
            let (thread, task) = try #require(writerThread.value)
            try await Descriptors.waitUntil("the writer is blocked in write(2)") { Self.isBlockedInWrite(task) }
            #expect(pthread_kill(thread, SIGUSR1) == 0)
            try await Descriptors.waitUntil("the handler ran") { interruptions.load(ordering: .relaxed) > seenBefore }
            // Nothing was written (the pipe is full), so write(2) returned EINTR; the policy makes it again.
            try await Descriptors.waitUntil("the writer is blocked in write(2) again") { Self.isBlockedInWrite(task) }
            #expect(outcome.value == nil, "still writing")
        } catch {
            gaveUp = error
        }
        // Drained whatever happened above, so that the writer never stays blocked.
        let drained = await DetachedThread.run(name: "test-drain") { Self.readToEnd(reader, piece: 65_536) }
        close(reader)
        if let gaveUp { throw gaveUp }
        #expect(drained == before + message)
        guard case .success? = outcome.value else {
            Issue.record("the write did not complete: \(String(describing: outcome.value))")
            return
        }
    }

    @Test("a descriptor that refuses the bytes: the call and its errno")
    func refused() throws {
        let readOnly = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(readOnly >= 0)
        defer { close(readOnly) }
        #expect(throws: SystemCallError(call: "write", errno: EBADF)) { try BlockingWrite.all("text", to: readOnly) }
        #expect(throws: Never.self) { try BlockingWrite.all([], to: readOnly) }
    }

    /// Reads `descriptor` in pieces of `piece` bytes until end of file.
    static func readToEnd(_ descriptor: Int32, piece: Int) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: piece)
        while true {
            let count = read(descriptor, &buffer, piece)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return received }
            received += buffer.prefix(count)
        }
    }

    /// The calling thread's id (the task id in `/proc/self/task`), from the `/proc/thread-self` link.
    static func threadID() -> Int32 {
        var target = [CChar](repeating: 0, count: 128)
        let length = readlink("/proc/thread-self", &target, target.count - 1)
        let link = String(decoding: target.prefix(max(0, length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Int32(link.split(separator: "/").last ?? "") ?? -1
    }

    /// Whether thread `task` of this process sits in the write(2) system call (`/proc/…/syscall`).
    static func isBlockedInWrite(_ task: Int32) -> Bool {
        #if arch(x86_64)
        let writeCall = "1"
        #else
        let writeCall = "64"
        #endif
        let fd = open("/proc/self/task/\(task)/syscall", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
        return text.split(separator: " ").first.map(String.init) == writeCall
    }
}
