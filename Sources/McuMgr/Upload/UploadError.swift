import SMP

/// Why an upload stopped. A device's error answer arrives as `.smp(.device(...))`, its only path.
public enum UploadError: Error, Sendable {
    /// The configuration cannot work (depth, alignment, packet size); nothing was sent.
    case invalidConfiguration(String)
    /// The session failed in a way retries could not mend, or the device refused the upload.
    case smp(SMPError)
    /// No progress past `offset` within the configured failures (the last one named).
    case stalled(offset: Int, lastError: SMPError)
    /// The device found the written data's hash different from the file's.
    case verificationFailed
    /// The upload was cancelled; the device keeps what it received and can resume it.
    case cancelled
}

extension UploadError: CustomStringConvertible {
    /// A one-line message.
    public var description: String {
        switch self {
        case .invalidConfiguration(let why): return "invalid upload configuration: \(why)"
        case .smp(.device(let error)): return "the device refused the upload: \(error)"
        case .smp(let error): return error.description
        case .stalled(let offset, let lastError): return "upload stalled at byte \(offset): \(lastError)"
        case .verificationFailed: return "the device reports that the uploaded data does not match the file's hash"
        case .cancelled: return "upload cancelled"
        }
    }
}
