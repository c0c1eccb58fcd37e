import SMP
import SMPSimulator
import SMPTestSupport
import Synchronization

/// A link to a simulated device that loses the packets a test picks: the device is the real
/// simulator, only the wire between it and the client is faulty.
enum LossyLink {
    /// Decides, for each packet in one direction, whether the link loses it.
    final class Filter: Sendable {
        private let state: Mutex<(seen: Int, lost: Int)> = Mutex((0, 0))
        private let matches: @Sendable (SMPHeader) -> Bool
        private let losing: Set<Int>

        /// Loses the `losing`-th packets (0 first) among those whose header `matches`.
        init(losing: Set<Int>, of matches: @escaping @Sendable (SMPHeader) -> Bool) {
            self.matches = matches
            self.losing = losing
        }

        /// Loses nothing.
        static var none: Filter { Filter(losing: []) { _ in false } }

        /// Packets this filter lost so far.
        var lost: Int { state.withLock { $0.lost } }

        func loses(_ packet: [UInt8]) -> Bool {
            guard let header = try? SMPHeader(decoding: packet), matches(header) else { return false }
            return state.withLock { state in
                defer { state.seen += 1 }
                guard losing.contains(state.seen) else { return false }
                state.lost += 1
                return true
            }
        }
    }

    /// Losing the answers (or requests) to `reset` (OS group, command 5).
    static func resets(losing: Set<Int>) -> Filter {
        Filter(losing: losing) { $0.group == SMPGroup.os.rawValue && $0.command == 5 }
    }

    /// A transport to `device` over a link that loses the requests `requests` picks and the
    /// answers `responses` picks.
    static func transport(
        to device: SimulatedDevice, requests: Filter = .none, responses: Filter = .none, maximumPacketSize: Int = 2048
    ) async -> LoopbackTransport {
        let transport = LoopbackTransport(maximumPacketSize: maximumPacketSize)
        let loopback = transport.device
        let id = await device.registerTransport(name: "lossy loopback")
        device.clock.task {
            for await packet in loopback.requests where !requests.loses(packet) {
                await device.receive(packet, from: id) { response in
                    if !responses.loses(response) { loopback.respond(response) }
                }
            }
        }
        return transport
    }
}
