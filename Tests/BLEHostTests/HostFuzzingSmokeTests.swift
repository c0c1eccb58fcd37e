import BLEHost
import SMPTestSupport
import SMPTestTraits
import Testing

/// `fuzz-hci-host`'s entry point (`HCIFuzzing.hostSession`) on the committed seeds' shapes and on
/// random and mutated streams, on virtual time: every scenario ends and the host's bounds hold
/// (the entry point checks them with `precondition`).
@Suite("A whole LE host against a controller sending anything (the fuzz entry point)", .virtualTime)
struct HostFuzzingSmokeTests {
    static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] { [0x04, code, UInt8(parameters.count)] + parameters }

    static func connectionComplete(_ handle: UInt16, role: UInt8 = 0) -> [UInt8] {
        event(0x3E, [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), role, 0x01, 1, 2, 3, 4, 5, 0xC0, 6, 0, 0, 0, 0xC8, 0, 0])
    }

    static func run(_ input: [UInt8]) async -> Int {
        let clock = VirtualRuntime.currentClock
        let runtime = VirtualRuntime.current
        return await HCIFuzzing.hostSession(input, clock: HostClock(clock, taskExecutor: clock.taskExecutor)) { runtime?.elapsed ?? .zero }
    }

    @Test("each scenario against a plain controller, and against a flood of unsolicited connections", arguments: HCIFuzzing.HostScenario.allCases)
    func scenarios(scenario: HCIFuzzing.HostScenario) async {
        #expect(await Self.run([scenario.rawValue]) == 0)
        let flood = (1...64).flatMap { Self.connectionComplete(UInt16($0)) + Self.connectionComplete(UInt16($0) + 0x100, role: 1) }
        #expect(await Self.run([scenario.rawValue | 0x80] + flood) > 0)
    }

    @Test("random and mutated controller streams, in every scenario")
    func randomStreams() async {
        var bytes = FuzzingSmokeTests.Bytes(state: 0x0123_4567_89AB_CDEF)
        let valid = H4AndEventDecodingTests.stream + Self.connectionComplete(0x40) + Self.connectionComplete(0x41, role: 1)
        for round in 0..<200 {
            var input = [UInt8(round % 4) | (round % 7 == 0 ? 0x80 : 0)]
            if round % 2 == 0 {
                var stream = valid
                for flip in bytes.next(3) { stream[Int(flip) % stream.count] ^= bytes.next(1)[0] }
                input += stream
            } else {
                input += bytes.next(Int(bytes.next(1)[0]))
            }
            _ = await Self.run(input)
        }
    }
}
