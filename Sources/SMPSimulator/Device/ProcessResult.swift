/// What processing one received buffer produced.
struct ProcessResult: Sendable {
    var responses: [[UInt8]] = []
    var records: [RequestRecord] = []
    var effects: [DeviceEffect] = []
    var flashBytesWritten = 0
}
