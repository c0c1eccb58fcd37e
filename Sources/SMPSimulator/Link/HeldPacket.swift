/// A packet held back by a reorder fault.
struct HeldPacket: Sendable {
    let bytes: [UInt8]
    let transport: Int
    let reply: ResponseSink
    let generation: Int
    let serial: Int
}
