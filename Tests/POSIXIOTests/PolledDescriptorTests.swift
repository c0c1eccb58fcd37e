import Glibc
import Testing

@testable import POSIXIO

/// The polled-descriptor engine over real sockets: byte streams and datagrams, ends, bounds.
@Suite("Polled descriptor: one engine for byte streams and datagrams")
struct PolledDescriptorTests {
    typealias Kind = PolledDescriptor.Kind

    static func socketType(_ kind: Kind) -> __socket_type { kind == .byteStream ? SOCK_STREAM : SOCK_SEQPACKET }

    @Test("a byte stream: what one end writes the other reads, in order, more than the socket holds, and in parts as asked")
    func byteStream() async throws {
        let (a, b) = try Descriptors.socketPair(SOCK_STREAM)
        let near = try PolledDescriptor(adopting: a, kind: .byteStream, readSize: 4096, readAhead: 4, threadName: "test-near")
        let far = try PolledDescriptor(adopting: b, kind: .byteStream, readSize: 4096, readAhead: 4, threadName: "test-far")
        let message = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        // More than the socket holds: the first write takes part of it, the thread writes the rest as the reader drains.
        async let written: Void = near.write(message)
        let received = await Descriptors.readBytes(message.count, from: far)
        try await written
        #expect(received == message)

        try await near.write([1, 2, 3, 4, 5])
        var parts: [[UInt8]] = []
        while parts.joined().count < 5, case .bytes(let part)? = await far.read(maximumCount: 2) { parts.append(part) }
        #expect(parts.allSatisfy { (1...2).contains($0.count) })
        #expect(Array(parts.joined()) == [1, 2, 3, 4, 5])
        await near.close()
        await far.close()
    }

    @Test("datagrams (SOCK_SEQPACKET): each write is one datagram, each read one whole datagram, never joined or split")
    func datagramBoundaries() async throws {
        let (a, b) = try Descriptors.socketPair(SOCK_SEQPACKET)
        let near = try PolledDescriptor(adopting: a, kind: .datagrams, readSize: 600, readAhead: 64, threadName: "test-near")
        let sizes = [1, 2, 3, 23, 185, 247, 251, 498, 517, 599] + (0..<40).map { 1 + ($0 * 37) % 599 }
        let sent = sizes.enumerated().map { index, size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
        for datagram in sent { try await near.write(datagram) }

        // Every datagram is in the kernel before anything is read: one read could join them, and must not.
        var first = [UInt8](repeating: 0, count: 4096)
        let count = recv(b, &first, first.count, 0)
        #expect(Array(first.prefix(max(count, 0))) == sent[0], "a plain recv sees the engine's first write alone")

        let far = try PolledDescriptor(adopting: b, kind: .datagrams, readSize: 600, readAhead: 64, threadName: "test-far")
        var received: [[UInt8]] = [sent[0]]
        // maximumCount does not split a datagram.
        while received.count < sent.count, case .bytes(let datagram)? = await far.read(maximumCount: 1) { received.append(datagram) }
        #expect(received == sent)
        await near.close()
        await far.close()
    }

    @Test("the peer's close: the bytes sent before it, then the end once, then nil; writes then fail with that end", arguments: [Kind.byteStream, .datagrams])
    func peerCloseOnce(kind: Kind) async throws {
        let (a, b) = try Descriptors.socketPair(Self.socketType(kind))
        let engine = try PolledDescriptor(adopting: a, kind: kind, readSize: 64, readAhead: 4, threadName: "test-peer-close")
        #expect(write(b, [UInt8]([1, 2, 3]), 3) == 3)
        close(b)
        var bytes: [UInt8] = []
        var ends: [DescriptorEnd] = []
        while let read = await engine.read() {
            switch read {
            case .bytes(let part): bytes += part
            case .end(let end): ends.append(end)
            }
        }
        #expect(bytes == [1, 2, 3])
        #expect(ends == [.peerClosed])
        #expect(await engine.read() == nil)
        await #expect(throws: DescriptorWriteError.ended(.peerClosed)) { try await engine.write([4]) }
        await engine.close()
        #expect(await engine.read() == nil)
    }

    @Test("closed from both ends at once, twice each: each descriptor is closed once, each reader gets one end, every close returns")
    func closeFromBothSides() async throws {
        for _ in 0..<50 {
            let (a, b) = try Descriptors.socketPair(SOCK_STREAM)
            let closings = Shared(0)
            let near = try PolledDescriptor(
                adopting: a, kind: .byteStream, readSize: 64, readAhead: 4, threadName: "test-near",
                beforeClose: { _ in closings.update { $0 += 1 } })
            let far = try PolledDescriptor(
                adopting: b, kind: .byteStream, readSize: 64, readAhead: 4, threadName: "test-far",
                beforeClose: { _ in closings.update { $0 += 1 } })
            async let nearEnds = Self.countEnds(near)
            async let farEnds = Self.countEnds(far)
            await withTaskGroup(of: Void.self) { group in
                for engine in [near, far, near, far] { group.addTask { await engine.close() } }
            }
            #expect(closings.value == 2)
            #expect(await nearEnds == 1)
            #expect(await farEnds == 1)
            await #expect(throws: DescriptorWriteError.self) { try await near.write([1]) }
        }
    }

    /// Reads until nil; how many ends came.
    static func countEnds(_ engine: PolledDescriptor) async -> Int {
        var ends = 0
        while let read = await engine.read() {
            if case .end = read { ends += 1 }
        }
        return ends
    }

    @Test("reads ahead at most readAhead reads of at most readSize bytes; the rest waits in the kernel, and nothing is lost", arguments: [Kind.byteStream, .datagrams])
    func boundedReadAhead(kind: Kind) async throws {
        let (a, b) = try Descriptors.socketPair(Self.socketType(kind))
        let engine = try PolledDescriptor(adopting: a, kind: kind, readSize: 1024, readAhead: 4, threadName: "test-bounded")
        // The peer writes until the kernel takes no more (the engine reads meanwhile, up to its limit).
        var sent: [[UInt8]] = []
        let written = Descriptors.fill(b) { offset in
            let chunk = (0..<700).map { UInt8(truncatingIfNeeded: (offset + $0) % 251) }
            sent.append(chunk)
            return chunk
        }
        try await Descriptors.waitUntil("the engine's read-ahead is full") { Descriptors.readAhead(of: engine).reads.count == 4 }
        let (reads, bytes) = Descriptors.readAhead(of: engine)
        #expect(reads.allSatisfy { (1...1024).contains($0) })
        #expect(bytes <= 4 * 1024)
        #expect(Descriptors.kernelQueue(a) > 0, "the engine stopped reading: the rest waits in the kernel")
        if kind == .byteStream { #expect(engine.bytesWaiting() == written.count) }

        var received: [[UInt8]] = []
        while received.joined().count < written.count, case .bytes(let part)? = await engine.read() { received.append(part) }
        #expect(Array(received.joined()) == written)
        if kind == .datagrams { #expect(received == Array(sent.prefix(received.count))) }
        #expect(engine.bytesWaiting() == 0)
        await engine.close()
        close(b)
    }

    @Test("a write to a stream whose peer has gone ends it with send's EPIPE (no SIGPIPE); the reader gets what came before, then that end")
    func brokenPipe() async throws {
        let (a, b) = try Descriptors.socketPair(SOCK_STREAM)
        let engine = try PolledDescriptor(adopting: a, kind: .byteStream, readSize: 1, readAhead: 1, threadName: "test-epipe")
        #expect(write(b, [UInt8]([1, 2]), 2) == 2)
        // One byte read ahead fills the engine: it no longer reads, so it does not see the close by reading.
        try await Descriptors.waitUntil("the engine read one byte") { Descriptors.readAhead(of: engine).reads.count == 1 }
        close(b)
        let broken = DescriptorEnd.failed(SystemCallError(call: "send", errno: EPIPE))
        await #expect(throws: DescriptorWriteError.ended(broken)) { try await engine.write([9]) }
        #expect(await engine.read() == .bytes([1]))
        #expect(await engine.read() == .end(broken))
        #expect(await engine.read() == nil)
        await engine.close()
    }

    @Test("connecting: nothing moves until a non-blocking connect completes; then bytes flow both ways; a refused one ends with connect's errno")
    func connecting() async throws {
        let (engine, listener) = try Loopback.connectingEngine(threadName: "test-connect")
        defer { close(listener) }
        // Queued while connecting, written once connected.
        async let hello: Void = engine.write(Array("hello".utf8))
        try await engine.waitUntilConnected()
        try await hello
        let server = try Loopback.accept(listener)
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = read(server, &buffer, 16)
        #expect(Array(buffer.prefix(max(0, count))) == Array("hello".utf8))
        #expect(write(server, "world", 5) == 5)
        #expect(await engine.read() == .bytes(Array("world".utf8)))
        close(server)
        #expect(await engine.read() == .end(.peerClosed))
        await engine.close()

        // A bound socket that does not listen refuses.
        let (quiet, quietPort) = try Loopback.listener(listening: false)
        defer { close(quiet) }
        let refused = try Loopback.startConnect(to: quietPort, refusalAllowed: true)
        guard refused >= 0 else { return }  // refused at once: no connect left to wait for
        let failing = try PolledDescriptor(
            adopting: refused, kind: .byteStream, readSize: 64, readAhead: 1, connecting: true, threadName: "test-refused")
        await #expect(throws: DescriptorEnd.failed(SystemCallError(call: "connect", errno: ECONNREFUSED))) {
            try await failing.waitUntilConnected()
        }
        await failing.close()
    }

    @Test("a failed read ends the I/O with the call and its errno: a TCP peer that resets the connection")
    func resetReportsErrno() async throws {
        let (engine, listener) = try Loopback.connectingEngine(threadName: "test-reset")
        defer { close(listener) }
        let server = try Loopback.accept(listener)
        try await engine.waitUntilConnected()
        try await engine.write([1, 2, 3])
        try await Descriptors.waitUntil("the bytes reached the server") { Descriptors.kernelQueue(server) == 3 }
        // Closing with unread bytes resets the connection.
        close(server)
        #expect(await engine.read() == .end(.failed(SystemCallError(call: "read", errno: ECONNRESET))))
        #expect(await engine.read() == nil)
        await engine.close()
    }

    @Test("a borrowed descriptor is served while borrowed, then left open with its flags as they were")
    func borrowed() async throws {
        let (a, b) = try Descriptors.socketPair(SOCK_SEQPACKET)
        let flags = fcntl(a, F_GETFL)
        let engine = try PolledDescriptor(borrowing: a, kind: .datagrams, readSize: 64, readAhead: 4, threadName: "test-borrowed")
        #expect(fcntl(a, F_GETFL) & O_NONBLOCK != 0)
        #expect(send(b, [UInt8]([7, 8, 9]), 3, 0) == 3)
        #expect(await engine.read() == .bytes([7, 8, 9]))
        await engine.close()
        #expect(await engine.read() == .end(.closed))
        #expect(fcntl(a, F_GETFL) == flags)
        #expect(send(b, [UInt8]([1]), 1, 0) == 1)
        var byte: UInt8 = 0
        #expect(recv(a, &byte, 1, 0) == 1 && byte == 1, "still open, and blocking again")
        close(a)
        close(b)
    }

    @Test("a write whose task is cancelled gives up when the engine is made so, and completes anyway otherwise", arguments: [true, false])
    func cancelledWrite(stopsOnCancellation: Bool) async throws {
        let (a, b) = try Descriptors.socketPair(SOCK_STREAM)
        let engine = try PolledDescriptor(
            adopting: a, kind: .byteStream, readSize: 64, readAhead: 1, writesStopOnCancellation: stopsOnCancellation, threadName: "test-cancel")
        let big = [UInt8](repeating: 1, count: 4 << 20)
        let writing = Task { () -> DescriptorWriteError? in
            do throws(DescriptorWriteError) {
                try await engine.write(big)
                return nil
            } catch {
                return error
            }
        }
        try await Descriptors.waitUntil("the write waits for room") { engine.state.withLockedValue { $0.writes.count == 1 } }
        writing.cancel()
        if stopsOnCancellation { #expect(await writing.value == .cancelled) }
        // Whatever happened to it, a later write goes out after it.
        async let marker: Void = engine.write([2])
        let drained = await DetachedThread.run(name: "test-drain") { () -> [UInt8] in
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while received.last != 2 {
                let count = read(b, &buffer, buffer.count)
                guard count > 0 else { break }
                received += buffer.prefix(count)
            }
            return received
        }
        try await marker
        #expect(drained.last == 2)
        #expect(drained.dropLast().allSatisfy { $0 == 1 })
        if stopsOnCancellation {
            #expect(drained.count < big.count + 1)
        } else {
            #expect(await writing.value == nil)
            #expect(drained.count == big.count + 1)
        }
        await engine.close()
        close(b)
    }
}

/// TCP on 127.0.0.1 for the connect tests.
enum Loopback {
    /// A socket bound to 127.0.0.1 on a free port (listening unless told not to), and the port.
    static func listener(listening: Bool = true) throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        if listening { try #require(listen(fd, 4) == 0) }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// A byte-stream engine on a socket whose connect to a new listener is in progress, and the listener.
    static func connectingEngine(threadName: String) throws -> (PolledDescriptor, listener: Int32) {
        let (listener, port) = try listener()
        do {
            let engine = try PolledDescriptor(
                adopting: try startConnect(to: port), kind: .byteStream, readSize: 4096, readAhead: 4, connecting: true, threadName: threadName)
            return (engine, listener)
        } catch {
            close(listener)
            throw error
        }
    }

    /// The next connection `listener` has (blocking: the tests connect first).
    static func accept(_ listener: Int32) throws -> Int32 {
        let server = Glibc.accept(listener, nil, nil)
        try #require(server >= 0)
        return server
    }

    /// A non-blocking socket whose connect to 127.0.0.1:`port` is in progress; -1 when it was
    /// refused at once and `refusalAllowed`.
    static func startConnect(to port: UInt16, refusalAllowed: Bool = false) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let started = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if started == 0 || errno == EINPROGRESS { return fd }
        let code = errno
        close(fd)
        try #require(refusalAllowed && code == ECONNREFUSED, "connect failed: \(errnoText(code))")
        return -1
    }
}
