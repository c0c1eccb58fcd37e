/// Counters behind the statistics group.
struct DeviceCounters: Sendable {
    var requests: UInt64 = 0
    var responses: UInt64 = 0
    var bytesReceived: UInt64 = 0
    var bytesSent: UInt64 = 0
    var errors: UInt64 = 0
    var flashBytesWritten: UInt64 = 0
    var flashErases: UInt64 = 0
}
