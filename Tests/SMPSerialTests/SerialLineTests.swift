import Glibc
import SMPSerial
import Testing

/// `SerialLine` on a socket pair: how many received bytes wait to be read.
@Suite("Serial line")
struct SerialLineTests {
    @Test("bytesWaiting counts what was received and not read yet: 0 on a quiet line and once closed")
    func bytesWaiting() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let near = try SerialLine(taking: fds[0], path: "near end")
        let far = try SerialLine(taking: fds[1], path: "far end")

        #expect(near.bytesWaiting() == 0)
        try await far.write([1, 2, 3, 4, 5])
        #expect(near.bytesWaiting() == 5)
        #expect(try await near.read(maximumCount: 3) == [1, 2, 3])
        #expect(near.bytesWaiting() == 2)
        #expect(try await near.read(maximumCount: 16) == [4, 5])
        #expect(near.bytesWaiting() == 0)

        try await far.write([6])
        await near.close()
        #expect(near.bytesWaiting() == 0)
        await far.close()
    }
}
