import Glibc
import SMPSerial
import Testing

/// `SerialDescriptor` on a socket pair: reading what is there without waiting.
@Suite("Serial descriptor")
struct SerialDescriptorTests {
    @Test("readWithoutWaiting returns nothing on a quiet line, what is there once written, and throws once closed")
    func readWithoutWaiting() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let near = try SerialDescriptor(taking: fds[0], path: "near end")
        let far = try SerialDescriptor(taking: fds[1], path: "far end")

        #expect(try near.readWithoutWaiting(maximumCount: 16) == [])
        try await far.write([1, 2, 3, 4, 5])
        #expect(try near.readWithoutWaiting(maximumCount: 3) == [1, 2, 3])
        #expect(try near.readWithoutWaiting(maximumCount: 16) == [4, 5])
        #expect(try near.readWithoutWaiting(maximumCount: 16) == [])

        await near.close()
        #expect(throws: SerialPortError.closed) { try near.readWithoutWaiting() }
        await far.close()
    }
}
