// products: SMP CBOR
import CBOR
import FuzzSupport
import SMP

/// One datagram from a device: the SMP header and packet, concatenated packets, the payload's CBOR
/// and the status it carries (`rc`, `err`). A packet that decodes writes back to the same bytes
/// (but for the reserved header bits, which are dropped).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPPacket(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = FuzzInput(start, count).bytes
    if let packet = try? SMPPacket(decoding: bytes) {
        // The header's reserved bits 7–5 are ignored on receive and written as 0 (as Zephyr does).
        precondition(packet.bytes == [bytes[0] & 0x1F] + bytes.dropFirst(), "a decoded packet does not write back to its bytes")
        precondition(Int(packet.header.length) == packet.payload.count)
        if let payload = try? packet.decodedPayload() {
            _ = try? SMPDeviceError(response: payload).map { "\($0)" }
        }
    }
    if let packets = try? SMPPacket.split(bytes) {
        var offset = 0
        for packet in packets {
            let original = bytes[offset..<min(bytes.count, offset + packet.bytes.count)]
            precondition(packet.bytes == [original.first! & 0x1F] + original.dropFirst(), "a split packet is not its bytes")
            offset += packet.bytes.count
        }
        precondition(offset == bytes.count, "split packets do not add up to the buffer")
    }
    _ = (try? SMPHeader(decoding: bytes)).map { "\($0)" }
    return 0
}
