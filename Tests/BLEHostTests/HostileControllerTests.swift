@testable import BLEHost
import GATT
import Logging
import NIOConcurrencyHelpers
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// Issue 33, defect 1: a controller that floods the host with LE Connection Complete events
/// nobody asked for. The controller is a
/// ``ScriptedController`` in process, on virtual time: the flood's rate and the scan's deadline are
/// exact, and nothing depends on the machine's speed.
@Suite("A hostile HCI controller flooding LE Connection Complete (issue 33, defect 1)", .virtualTime)
struct HostileControllerTests {
    static let smp = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!
    static let quiet = Logger(label: "ble.host.test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// LE Connection Complete events per second the flood sends (40 every 10 ms).
    static let floodRate = 4000

    /// Starts a host on `controller`; the controller answers on the same virtual clock.
    static func startHost(_ controller: ScriptedController, clock: SMPClock) async throws -> LEHost {
        let hostClock = HostClock(clock, taskExecutor: clock.taskExecutor)
        controller.start(on: hostClock)
        let host = LEHost(transport: controller.transport, clock: hostClock, logger: quiet)
        try await host.start()
        return host
    }

    /// A controller that floods LE Connection Complete (new handle and peer each, this host as
    /// central) at ``floodRate`` per second from the moment scanning is enabled until the link ends;
    /// `sent` counts them, `deadline` records how many went before it.
    static func floodingController(
        clock: SMPClock, disconnectAnswer: ScriptedController.DisconnectAnswer, sent: NIOLockedValueBox<Int>,
        onCreateConnection: (@Sendable (ScriptedController, [UInt8]) async -> Void)? = nil
    ) -> ScriptedController {
        ScriptedController(
            disconnectAnswer: disconnectAnswer, onCreateConnection: onCreateConnection,
            onScanEnabled: { controller in
                guard sent.withLockedValue({ $0 }) == 0 else { return }
                clock.task {
                    var n = 0
                    while !controller.transport.isEnded {
                        for _ in 0..<(floodRate / 100) {
                            // Handles 0x001–0xEFF, reused as the flood wraps.
                            await controller.send(ScriptedController.connectionComplete(handle: UInt16(n % 0x0EFF) + 1, peer: ScriptedController.address(n)))
                            n += 1
                        }
                        sent.withLockedValue { $0 = n }
                        do { try await clock.sleep(for: .milliseconds(10)) } catch { return }
                    }
                }
            })
    }

    /// Runs `body`, or gives up after `limit` of virtual time: then `giveUp` runs (it must make
    /// `body` end, e.g. by ending the controller's link) and the result is nil.
    static func within<T: Sendable>(
        _ limit: Duration, clock: SMPClock, giveUp: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () async -> T
    ) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            let done = NIOLockedValueBox(false)
            group.addTask {
                let value = await body()
                done.withLockedValue { $0 = true }
                return value
            }
            group.addTask {
                try? await clock.sleep(for: limit)
                if !done.withLockedValue({ $0 }) { giveUp() }
                return nil
            }
            // The first to finish decides; the timer is then cancelled (or the body ends after giveUp).
            var result: T?
            if let first = await group.next() { result = first }
            group.cancelAll()
            for await value in group {
                if let value { result = value }
            }
            return result
        }
    }

    @Test(
        "an LE Connection Complete flood at 4000 events/s from a controller that never answers Disconnect: the scan ends at its 5 s deadline, the host keeps none of those connections",
        arguments: [ScriptedController.DisconnectAnswer.none, .complete])
    func connectionFloodDuringScan(disconnectAnswer: ScriptedController.DisconnectAnswer) async throws {
        let clock = VirtualRuntime.currentClock
        let sent = NIOLockedValueBox(0)
        let controller = Self.floodingController(clock: clock, disconnectAnswer: disconnectAnswer, sent: sent)
        let host = try await Self.startHost(controller, clock: clock)
        let start = clock.now
        // What the test reads when the scan returns: elapsed time, events sent, connections kept, Disconnects.
        let seen = NIOLockedValueBox((Duration.zero, 0, 0, 0))
        let outcome = await Self.within(.seconds(60), clock: clock, giveUp: { controller.transport.end(reason: "the test gave up") }) {
            () async -> Result<[LEScanResult], LEHostError> in
            let result: Result<[LEScanResult], LEHostError>
            do throws(LEHostError) {
                result = .success(try await host.scan(for: .seconds(5)))
            } catch {
                result = .failure(error)
            }
            let kept = host.state.withLockedValue { $0.connections.count }
            let disconnects = controller.log.withLockedValue { $0.disconnects.count }
            seen.withLockedValue { $0 = (start.duration(to: clock.now), sent.withLockedValue { $0 }, kept, disconnects) }
            return result
        }
        let (elapsed, floodedBeforeEnd, kept, disconnects) = seen.withLockedValue { $0 }
        controller.transport.end(reason: "the test ended")
        await host.close()

        guard case .success(let results)? = outcome else {
            Issue.record("the scan did not end within 60 s of virtual time (\(String(describing: outcome))); \(kept) connections kept")
            return
        }
        #expect(results.isEmpty)
        #expect(elapsed <= .seconds(5), "the scan ended \(elapsed) after it started")
        #expect(floodedBeforeEnd >= Self.floodRate * 5, "the controller sent only \(floodedBeforeEnd) events")
        // None of the flood's connections is kept, and they are disconnected at a bounded rate.
        #expect(kept == 0)
        #expect(disconnects <= LEHost.strayDisconnectRate * 5 + 1, "\(disconnects) Disconnect commands in 5 s")
        #expect(disconnects >= 1)
    }

    @Test("during a flood of unsolicited connections, the connection the host asked for is made and kept; the flood's are not")
    func connectDuringFlood() async throws {
        let clock = VirtualRuntime.currentClock
        let sent = NIOLockedValueBox(0)
        let peer = LEAddress("C0:FF:EE:00:00:01", kind: .random)!
        let controller = Self.floodingController(
            clock: clock, disconnectAnswer: .complete, sent: sent,
            onCreateConnection: { controller, _ in
                clock.task {
                    try? await clock.sleep(for: .milliseconds(30))
                    await controller.send(ScriptedController.connectionComplete(handle: 0x0F00, peer: peer))
                }
            })
        let host = try await Self.startHost(controller, clock: clock)
        // The flood starts with the scan and goes on through the connection attempt.
        _ = try await host.scan(for: .milliseconds(100))
        let connection = try await host.connect(to: peer, timeout: .seconds(5))
        #expect(connection.handle == 0x0F00 && connection.peer == peer)
        try await clock.sleep(for: .seconds(1))
        #expect(!connection.isEnded)
        #expect(host.state.withLockedValue { Array($0.connections.keys) } == [0x0F00])
        #expect(!controller.log.withLockedValue { $0.disconnects }.contains(0x0F00))
        controller.transport.end(reason: "the test ended")
        await host.close()
    }
}
