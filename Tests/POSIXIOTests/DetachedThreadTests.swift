import Glibc
import POSIXIO
import Testing

@Suite("threads of their own")
struct DetachedThreadTests {
    /// The calling thread and its name (as `ps` shows it).
    static func currentThread() -> (id: pthread_t, name: String) {
        let id = pthread_self()
        var buffer = [CChar](repeating: 0, count: 64)
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        if fd >= 0 {
            _ = read(fd, &buffer, buffer.count - 1)
            close(fd)
        }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (id, name.hasSuffix("\n") ? String(name.dropLast()) : name)
    }

    @Test("the body runs on another thread, under its name")
    func runsOnANamedThread() async {
        let caller = Self.currentThread().id
        let seen = await DetachedThread.run(name: "smp-test") { Self.currentThread() }
        #expect(seen.id != caller)
        #expect(seen.name == "smp-test")
    }

    @Test("a long name is cut to Linux's 15 bytes on a character boundary")
    func longNamesAreCut() async {
        // 13 ASCII bytes, then "é" (2 bytes) would end at 15; "ü" after it would not fit.
        let seen = await DetachedThread.run(name: "smp-serial /déüx") { Self.currentThread() }
        #expect(seen.name == "smp-serial /dé")
        let ascii = await DetachedThread.run(name: "smp-serial /dev/ttyACM0") { Self.currentThread() }
        #expect(ascii.name == "smp-serial /dev")
    }

    @Test("start runs the body once, on another thread")
    func startRunsTheBody() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: pthread_t.self)
        try DetachedThread.start(name: "smp-start") { continuation.yield(Self.currentThread().id); continuation.finish() }
        var ids: [pthread_t] = []
        for await id in stream { ids.append(id) }
        #expect(ids.count == 1)
        #expect(ids.first != Self.currentThread().id)
    }
}
