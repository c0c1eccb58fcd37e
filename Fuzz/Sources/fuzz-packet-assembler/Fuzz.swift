// products: SMP
import FuzzSupport
import SMP

/// A byte stream in any fragmentation (BLE notifications, UART reads, serial frames) through
/// `SMPPacketAssembler`: it holds at most one packet's bytes, delivers only whole packets of the
/// operations it takes and within its size, and accounts for every byte it drops.
///
/// Input: a byte choosing the size limit, a byte choosing requests or responses, then pieces
/// (each a length byte and that many bytes) fed one `append` at a time.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPacketAssembler(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let limit = 8 + Int(input.byte()) * 16
    var assembler = input.byte() & 1 == 0 ? SMPPacketAssembler.responses(maximumPacketSize: limit) : .requests(maximumPacketSize: limit)
    let operations = assembler.operations
    while !input.isAtEnd {
        let piece = input.take(Int(input.byte()))
        for output in assembler.append(piece) {
            switch output {
            case .packet(let bytes):
                precondition(bytes.count <= assembler.maximumPacketSize, "a packet past the limit was delivered")
                guard let packet = try? SMPPacket(decoding: bytes) else { fatalError("an undecodable packet was delivered") }
                precondition(operations.contains(packet.header.operation), "a packet of an operation not taken was delivered")
            case .skipped:
                break
            }
            precondition(assembler.bufferedByteCount <= assembler.maximumPacketSize, "the assembler holds more than a packet")
        }
    }
    return 0
}
