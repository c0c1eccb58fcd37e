import SMP
import SMPSimulator
import SMPTestSupport
import Testing

/// The simulator's baud-rate model on virtual time: 8N1 carries baud/10 bytes a second each way.
@Suite("Serial line pacer (virtual time)")
struct SerialLinePacerTests {
    @Test("11 520 bytes take one second at 115200 baud, 10 000 bytes 100 ms at 1 000 000, back to back")
    func pacing() async throws {
        let runtime = VirtualRuntime()
        let elapsed = try await runtime.run { clock in
            var slow = SerialLinePacer(baudRate: 115_200, clock: clock)
            for _ in 0..<10 { await slow.pass(1152) }
            let afterSlow = clock.now.offset
            var fast = SerialLinePacer(baudRate: 1_000_000, clock: clock)
            await fast.pass(10_000)
            return (afterSlow, clock.now.offset - afterSlow)
        }
        #expect(elapsed.0 == .seconds(1))
        #expect(elapsed.1 == .milliseconds(100))
    }

    @Test("bytes booked while the line is busy queue behind it; an instant line books nothing")
    func booking() async throws {
        let runtime = VirtualRuntime()
        try await runtime.run { clock in
            var line = SerialLinePacer(baudRate: 9600, clock: clock)
            #expect(line.reserve(96) == clock.now + .milliseconds(100))
            #expect(line.reserve(96) == clock.now + .milliseconds(200))
            #expect(line.chunkSize == 16)
            var instant = SerialLinePacer(baudRate: nil, clock: clock)
            #expect(instant.reserve(1_000_000) == nil)
            #expect(instant.chunkSize == 4096)
            #expect(SerialLinePacer(baudRate: 1_000_000, clock: clock).chunkSize == 500)
        }
    }

    @Test("bytes already waiting follow the last ones on the wire even when the pacer comes to them late; after an idle line they start when they come")
    func continuing() async throws {
        let runtime = VirtualRuntime()
        try await runtime.run { clock in
            var line = SerialLinePacer(baudRate: 9600, clock: clock)
            let start = clock.now
            let first = line.reserve(96)
            #expect(first == start + .milliseconds(100))
            let through = start + .milliseconds(100)
            // The reader wakes 3 ms after the first bytes were through: the waiting ones still
            // start where those ended, so the line keeps its 960 bytes a second.
            try await clock.sleep(until: through + .milliseconds(3), tolerance: .zero)
            #expect(line.reserve(96, continuing: true) == through + .milliseconds(100))
            // The line has been idle for a while: new bytes start now, not in the past.
            try await clock.sleep(until: through + .milliseconds(250), tolerance: .zero)
            #expect(line.reserve(96) == through + .milliseconds(350))
        }
    }
}
