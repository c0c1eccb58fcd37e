// products: BLEHost GATT SMP SMPTestSupport
import BLEHost
import FuzzSupport
import GATT
import SMP
import SMPTestSupport

/// The HCI event stream as a whole LE host meets it: not the decoders alone (`fuzz-hci-l2cap`) but
/// an `LEHost` running a scan, a search by service and name, a connection with a GATT exchange on
/// its ATT channel, or advertising, against a controller that delivers the input's H4 packets —
/// events and ACL data in any order, before, between and instead of the answers a plain controller
/// gives — optionally each 32 times over (a flood). On virtual time, driven on libFuzzer's thread.
///
/// Invariants (`HCIFuzzing.hostSession`): every scenario ends (a task left waiting for nothing
/// stops the runtime before the body returns, which is a crash here); a scan that succeeds ends by
/// its deadline; the host never keeps more connections, queued strays, scan entries or services per
/// device than its bounds; a connection it returns is on a handle the controller completed.
///
/// Input: a scenario byte (bits 0–1: scan, find, connect and GATT, accept; bit 7: flood), then an
/// H4 byte stream from the controller.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCIHost(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(start, count).bytes
    let runtime = VirtualRuntime()
    runtime.runOnCallingThread { clock in
        _ = await HCIFuzzing.hostSession(input, clock: HostClock(clock, taskExecutor: clock.taskExecutor)) { runtime.elapsed }
    }
    return 0
}
