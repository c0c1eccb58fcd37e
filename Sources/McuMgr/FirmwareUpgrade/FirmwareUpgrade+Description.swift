// How firmware-upgrade states, events and reports print, for people who `print` them; the
// `mcumgr upgrade` command shows the same words.

extension FirmwareUpgradeState: CustomStringConvertible {
    /// The state's name as Nordic's libraries spell it, e.g. `requestMcuMgrParameters`.
    public var description: String { rawValue }
}

extension FirmwareUpgradeReport: CustomStringConvertible {
    /// `uploaded 262696 bytes in 2.35 s (109.2 KiB/s), 1 reset(s)`, or that nothing needed uploading.
    public var description: String {
        let uploaded = uploadedImages.isEmpty
            ? "nothing uploaded (the images were already on the device)"
            : "uploaded \(bytesUploaded) bytes in \(TextFormat.fixed(uploadDuration.seconds, 2)) s (\(TextFormat.rate(averageBytesPerSecond)))"
        return "\(uploaded), \(resets) reset(s)"
    }
}

extension FirmwareUpgradeEvent: CustomStringConvertible {
    /// One line: `state: upload`, `image 0: 44% (118000/262696 bytes, 56.7 KiB/s, ETA 0:03)`,
    /// `completed: uploaded … bytes …, 1 reset(s)` or `failed: <the error>`.
    public var description: String {
        switch self {
        case .stateChanged(let state): return "state: \(state)"
        case .uploadProgress(let image, let progress): return "image \(image): \(progress)"
        case .completed(let report): return "completed: \(report)"
        case .failed(let error): return "failed: \(error)"
        }
    }
}
