/// Upload offsets at which a fault fires, each once.
struct UploadFaults: Sendable {
    var resetAt: Int?
    var disconnectAt: Int?
    /// Every upload is refused at its first chunk (an application's upload check hook).
    var refusesUploads = false

    /// The fault due for a chunk written at `offset`, disarming it.
    mutating func fire(at offset: Int) -> DeviceEffect? {
        if let at = resetAt, offset >= at {
            resetAt = nil
            return .crash
        }
        if let at = disconnectAt, offset >= at {
            disconnectAt = nil
            return .disconnect
        }
        return nil
    }
}
