import SMP

/// Why an upload stopped.
public enum UploadError: Error, Sendable {
    /// The configuration cannot work (depth, alignment, packet size); nothing was sent.
    case invalidConfiguration(String)
    /// The device refused the upload with an error.
    case device(SMPDeviceError)
    /// The session failed in a way retries could not mend.
    case smp(SMPError)
    /// No progress after the configured number of failures in a row.
    case stalled(offset: Int, lastError: SMPError)
    /// The device found the written data's hash different from the file's.
    case verificationFailed
    /// The upload was cancelled; the device keeps what it received and can resume it.
    case cancelled
    /// Anything else, described.
    case failed(String)
}

extension UploadError: CustomStringConvertible {
    /// A one-line message.
    public var description: String {
        switch self {
        case .invalidConfiguration(let why): return "invalid upload configuration: \(why)"
        case .device(let error): return "the device refused the upload: \(error)"
        case .smp(let error): return error.description
        case .stalled(let offset, let lastError): return "upload stalled at byte \(offset): \(lastError)"
        case .verificationFailed: return "the device reports that the uploaded data does not match the file's hash"
        case .cancelled: return "upload cancelled"
        case .failed(let why): return why
        }
    }
}
