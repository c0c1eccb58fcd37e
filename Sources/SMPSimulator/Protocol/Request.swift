/// One SMP request taken out of a received buffer.
struct Request: Sendable {
    let header: RequestHeader
    let payload: ArraySlice<UInt8>
    /// Which transport it came over (the FS group ties an open file to its transport).
    let transport: Int
    /// The rules of request decoding the device breaks (``SimulatorQuirk``).
    var quirks: Set<SimulatorQuirk> = []

    var isRead: Bool { header.isRead }
    var isWrite: Bool { header.isWrite }

    /// The payload as a request map (`EINVAL` when it is not one).
    func fields() throws(StatusError) -> RequestFields {
        try RequestFields(payload: payload, quirks: quirks)
    }
}
