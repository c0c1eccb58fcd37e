import SMP
import McuBoot

/// How a firmware upgrade runs; the names follow Nordic's Device Manager libraries.
public struct FirmwareUpgradeConfiguration: Sendable, Hashable {
    /// What to do once the image is on the device.
    public var mode: FirmwareUpgradeMode
    /// Chunk requests in flight at once; `nil` takes the device's `buf_count − 1` (at least 1).
    public var pipelineDepth: Int?
    /// Chunk data lengths are multiples of this (1, 2, 4, 8 or 16).
    public var byteAlignment: Int
    /// The device's reassembly buffer (largest request) in bytes; `nil` takes its `buf_size`.
    public var reassemblyBufferSize: Int?
    /// Erase the application's settings storage (Zephyr basic group) before resetting.
    public var eraseAppSettings: Bool
    /// How long the bootloader is expected to need to swap images; polling starts after it.
    public var estimatedSwapTime: Duration
    /// How long to wait for the device to answer again after a reset.
    public var resetTimeout: Duration
    /// Refuse an image whose version is not newer than the running one (checked here, and asked of the device).
    public var rejectsDowngrade: Bool
    /// Ask for the bootloader's name and mode before validating.
    public var requestsBootloaderInfo: Bool
    /// How long to wait for each upload chunk's answer.
    public var chunkTimeout: Duration
    /// How long each control step (parameters, bootloader info, validate, test, confirm) keeps
    /// resending through a lossy link before the upgrade fails.
    public var stepTimeout: Duration
    /// The bootloader's mode, for devices that do not report it; `nil` takes what bootloader info
    /// says (a swap mode when the device does not answer).
    public var bootloaderMode: BootloaderMode?
    /// Public keys an image's signature must verify with before anything is uploaded (any may
    /// match); empty means no signature check.
    public var signatureKeys: [McuBootPublicKey]

    /// Makes a configuration; defaults are test-and-confirm with sizes taken from the device.
    public init(
        mode: FirmwareUpgradeMode = .testAndConfirm, pipelineDepth: Int? = nil, byteAlignment: Int = 1,
        reassemblyBufferSize: Int? = nil, eraseAppSettings: Bool = false, estimatedSwapTime: Duration = .zero,
        resetTimeout: Duration = .seconds(60), rejectsDowngrade: Bool = false, requestsBootloaderInfo: Bool = true,
        chunkTimeout: Duration = .seconds(2), stepTimeout: Duration = .seconds(120),
        bootloaderMode: BootloaderMode? = nil, signatureKeys: [McuBootPublicKey] = []
    ) {
        self.mode = mode
        self.pipelineDepth = pipelineDepth
        self.byteAlignment = byteAlignment
        self.reassemblyBufferSize = reassemblyBufferSize
        self.eraseAppSettings = eraseAppSettings
        self.estimatedSwapTime = estimatedSwapTime
        self.resetTimeout = resetTimeout
        self.rejectsDowngrade = rejectsDowngrade
        self.requestsBootloaderInfo = requestsBootloaderInfo
        self.chunkTimeout = chunkTimeout
        self.stepTimeout = stepTimeout
        self.bootloaderMode = bootloaderMode
        self.signatureKeys = signatureKeys
    }

    /// The upload part of this configuration, for the upload engine (which validates it).
    public var upload: UploadConfiguration {
        UploadConfiguration(pipelineDepth: pipelineDepth, byteAlignment: byteAlignment, chunkTimeout: chunkTimeout)
    }

    /// Options for a control step: resent until ``stepTimeout`` has passed.
    var stepOptions: SMPRequestOptions { .persistent(for: stepTimeout) }
}
