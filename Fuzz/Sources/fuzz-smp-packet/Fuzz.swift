// products: SMP CBOR
import CBOR
import FuzzSupport
import SMP

/// One datagram from a device: the SMP header and packet, concatenated packets, the payload's CBOR
/// and the status it carries (`rc`, `err`). A packet that decodes writes back to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPPacket(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = FuzzInput(start, count).bytes
    if let packet = try? SMPPacket(decoding: bytes) {
        precondition(packet.bytes == bytes, "a decoded packet does not write back to its bytes")
        precondition(Int(packet.header.length) == packet.payload.count)
        if let payload = try? packet.decodedPayload() {
            _ = try? SMPDeviceError(response: payload).map { "\($0)" }
        }
    }
    if let packets = try? SMPPacket.split(bytes) {
        precondition(packets.flatMap(\.bytes) == bytes, "split packets do not add up to the buffer")
    }
    _ = (try? SMPHeader(decoding: bytes)).map { "\($0)" }
    return 0
}
