/// How the simulated device is built: the Kconfig choices of a Zephyr `smp_svr` image and its MCUboot.
public struct DeviceConfiguration: Sendable {
    /// `buf_size`: bytes of one SMP buffer, header included (`CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE`).
    public var bufferSize: Int = 2048
    /// `buf_count`: SMP buffers, i.e. requests the device holds at once (`CONFIG_MCUMGR_TRANSPORT_NETBUF_COUNT`).
    public var bufferCount: Int = 4
    /// What MCUmgr parameters (OS command 6) report as `buf_size` instead of ``bufferSize``, to
    /// test clients against a device that misreports it (0, 10, −1); `nil` reports the real value.
    public var reportedBufferSize: Int? = nil
    /// What MCUmgr parameters report as `buf_count` instead of ``bufferCount``; `nil` reports the real value.
    public var reportedBufferCount: Int? = nil
    /// Updatable images, each with a primary and a secondary slot.
    public var imageCount: Int = 2
    /// Size of every image slot in bytes.
    public var slotSize: Int = 0x80000
    /// Encode response maps and arrays with indefinite length (`0xbf … 0xff`), as a default Zephyr build does.
    public var usesIndefiniteLengthMaps = false
    /// Accept SMP v1 requests (`CONFIG_MCUMGR_SMP_SUPPORT_ORIGINAL_PROTOCOL`); without it they get `rc` 12.
    public var supportsSMPv1 = true
    /// Check the finished upload against its `sha` and answer `match` (`CONFIG_IMG_ENABLE_IMAGE_CHECK`).
    public var checksUploadedImages = true
    /// Keep the image upload state across a reset (Zephyr loses it).
    public var keepsUploadStateAcrossReset = false
    /// MCUboot's mode: reported by bootloader info, and what the slots do (list, upload slot,
    /// test/confirm/erase, boot).
    public var bootloaderMode: MCUbootMode = .swapUsingMove
    /// Erasing or uploading over a slot marked for the next boot is allowed
    /// (`CONFIG_MCUMGR_GRP_IMG_ALLOW_ERASE_PENDING`); without it both answer `NO_FREE_SLOT`.
    public var allowsErasingPendingSlots = false
    /// MCUboot refuses to boot an older image (`MCUBOOT_DOWNGRADE_PREVENTION`); reported as `no-downgrade`.
    public var preventsDowngrade = false
    /// Allow confirming slots of images other than the running one (`..._ALLOW_CONFIRM_NON_ACTIVE_IMAGE_ANY`).
    public var allowsConfirmingOtherImages = true
    /// Compare build numbers too for `upgrade: true` (`..._VERSION_CMP_USE_BUILD_NUMBER`).
    public var comparesBuildNumbers = false
    /// Time from the reset response to the reboot (`CONFIG_MCUMGR_GRP_OS_RESET_MS`).
    public var resetDelay: Duration = .milliseconds(250)
    /// Time the device needs to boot (and swap) before it answers again.
    public var bootDuration: Duration = .milliseconds(300)
    /// Answer console echo control (OS 1) and memory pool statistics (OS 3) as documented; a current
    /// Zephyr build answers both with `ENOTSUP`.
    public var answersDocumentedOSCommands = true
    /// Offer the Mynewt log group (4), fed by the device's own events; Zephyr answers `ENOTSUP`.
    public var offersLogGroup = true
    /// Append `.<ms>` to the date-time (`CONFIG_MCUMGR_GRP_OS_DATETIME_MS`).
    public var datetimeHasMilliseconds = false
    /// The real-time clock starts set (to 2024-01-01T00:00:00) instead of answering `RTC_NOT_SET`.
    public var clockStartsSet = false
    /// Mount point of the file system.
    public var mountPoint = "/lfs1"
    /// Bytes of file contents the file system holds; writing past it answers `FILE_WRITE_FAILED`.
    public var fileSystemCapacity = 1 << 20
    /// Files the file system holds; creating one more answers `FS_MGMT_ERR_UNKNOWN` (littlefs's
    /// `-ENOSPC` from `fs_open`).
    public var fileSystemMaximumFiles = 1024
    /// Settings the device keeps (in RAM and in its storage partition); writing a new one past it
    /// answers `MGMT_ERR_ENOMEM`.
    public var settingsMaximumEntries = 256
    /// Bytes of settings names and values the device keeps; a write past it answers `MGMT_ERR_ENOMEM`.
    public var settingsMaximumBytes = 16 * 1024
    /// Longest file path (`CONFIG_MCUMGR_GRP_FS_PATH_LEN`).
    public var maximumPathLength = 64
    /// Settings names must be shorter than this (`CONFIG_MCUMGR_GRP_SETTINGS_NAME_LEN`).
    public var settingsNameLimit = 64
    /// Largest settings value read at once (`CONFIG_MCUMGR_GRP_SETTINGS_VALUE_LEN`).
    public var settingsValueLimit = 64
    /// Root names with a settings handler; nil accepts any root, others answer `ROOT_KEY_NOT_FOUND`.
    public var settingsRoots: Set<String>? = nil
    /// Longest shell command line (`CONFIG_SHELL_CMD_BUFF_SIZE`).
    public var shellCommandLimit = 256
    /// A SUIT device (nRF54H20): offers the SUIT group (66) with these roles and partitions; nil: an MCUboot device only.
    public var suit: SUITDeviceConfiguration? = nil
    /// The test suites the run group (7) lists and runs.
    public var testSuites = ["os_test", "cbor_test", "flash_test"]
    /// Node name reported by OS info (`n`).
    public var nodeName = "mcumgr-sim"
    /// Board reported by OS info (`i`).
    public var board = "native_sim"
    /// Kernel version reported by OS info (`v`) and the shell.
    public var kernelVersion = "3.6.0"
    /// Rules of the protocol the device breaks (none by default): see ``SimulatorQuirk``.
    public var quirks: Set<SimulatorQuirk> = []
    /// How long ``SimulatorQuirk/wedgesOnBadLength`` keeps the device silent.
    public var wedgeDuration: Duration = .seconds(2)

    /// Makes the default configuration: two images, 512 KiB slots, `buf_size` 2048, `buf_count` 4.
    public init() {}
}
