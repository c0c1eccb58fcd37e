/// What a running firmware upgrade reports.
public enum FirmwareUpgradeEvent: Sendable {
    /// The upgrade entered a new state.
    case stateChanged(FirmwareUpgradeState)
    /// Upload of image `image` moved on.
    case uploadProgress(image: Int, UploadProgress)
    /// The upgrade finished; the stream ends after this.
    case completed(FirmwareUpgradeReport)
    /// The upgrade failed; the stream ends after this.
    case failed(FirmwareUpgradeError)
}

/// What a finished upgrade did.
public struct FirmwareUpgradeReport: Sendable {
    /// Images whose data was sent (others were already on the device).
    public var uploadedImages: [Int]
    /// Bytes of the images uploaded during this run (the whole image, even where the device resumed a partial upload).
    public var bytesUploaded: Int
    /// Time spent uploading.
    public var uploadDuration: Duration
    /// How many resets the upgrade performed.
    public var resets: Int
    /// The device's image table at the end.
    public var slots: [ImageSlot]
    /// The pipeline depth used.
    public var pipelineDepth: Int
    /// The largest request packet used.
    public var packetSize: Int

    /// Average upload throughput in bytes per second.
    public var averageBytesPerSecond: Double {
        let seconds = Double(uploadDuration.components.seconds) + Double(uploadDuration.components.attoseconds) / 1e18
        return seconds > 0 ? Double(bytesUploaded) / seconds : 0
    }
}
