import SMP

// The image group's commands as typed requests (group 1).

/// Reads the slot table (image command 0, read).
public struct ImageStateRead: SMPFieldlessRequest {
    /// The slot table.
    public typealias Response = ImageStateResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The image group.
    public static var group: SMPGroup { .image }
    /// Command 0.
    public static var command: UInt8 { 0 }
    /// Makes the request.
    public init() {}
}

extension ImageStateWriteRequest: SMPRequest {
    /// The new slot table.
    public typealias Response = ImageStateResponse
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The image group.
    public static var group: SMPGroup { .image }
    /// Command 0.
    public static var command: UInt8 { 0 }
    /// Test or confirm by hash lands in the same state however often it is sent.
    public static var retryPolicy: SMPRetryPolicy { .resend }
}

extension ImageUploadRequest: SMPRequest {
    /// The offset the device expects next.
    public typealias Response = ImageUploadResponse
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The image group.
    public static var group: SMPGroup { .image }
    /// Command 1.
    public static var command: UInt8 { 1 }
    /// A chunk carries its offset: a repeat is answered with the offset the device expects.
    public static var retryPolicy: SMPRetryPolicy { .resend }
}

extension ImageEraseRequest: SMPRequest {
    /// Nothing but success.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The image group.
    public static var group: SMPGroup { .image }
    /// Command 5.
    public static var command: UInt8 { 5 }
    /// Not resent blindly: read the slot table to learn whether a lost erase happened.
    public static var retryPolicy: SMPRetryPolicy { .doNotResend }
}

/// Reads each image's slots and sizes (image command 6).
public struct ImageSlotInfoRead: SMPFieldlessRequest {
    /// Slots by image.
    public typealias Response = ImageSlotInfoResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The image group.
    public static var group: SMPGroup { .image }
    /// Command 6.
    public static var command: UInt8 { 6 }
    /// Makes the request.
    public init() {}
}
