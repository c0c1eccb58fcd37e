// The numbers the device answers with (smp-reference §4.2 and §4.3), kept apart from the
// client's error types so that the device is written from the reference alone.

/// A status or group error number as it goes on the wire.
typealias DeviceErrorCode = Int

/// SMP-level statuses (`enum mcumgr_err_t`).
enum MgmtError {
    static let ok = 0
    static let unknown = 1
    static let noMemory = 2
    static let invalid = 3
    static let timeout = 4
    static let noEntry = 5
    static let badState = 6
    static let messageSize = 7
    static let notSupported = 8
    static let corrupt = 9
    static let busy = 10
    static let accessDenied = 11
    static let unsupportedTooOld = 12
    static let unsupportedTooNew = 13
}

/// OS group errors (`OS_MGMT_ERR_*`).
enum OSError {
    static let invalidFormat = 2
    static let queryYieldsNoAnswer = 3
    static let rtcNotSet = 4
}

/// Image group errors (`IMG_MGMT_ERR_*`).
enum ImageError {
    static let unknown = 1
    static let noImage = 3
    static let noTLVs = 4
    static let hashNotFound = 8
    static let noFreeSlot = 9
    static let flashWriteFailed = 12
    static let invalidSlot = 14
    static let noFreeMemory = 15
    static let invalidPageOffset = 19
    static let invalidOffset = 20
    static let invalidLength = 21
    static let invalidImageHeader = 22
    static let invalidImageHeaderMagic = 23
    static let invalidHash = 24
    static let invalidFlashAddress = 25
    static let currentVersionIsNewer = 27
    static let imageAlreadyPending = 28
    static let invalidImageTooLarge = 30
    static let invalidImageDataOverrun = 31
    static let imageConfirmationDenied = 32
    static let imageSettingTestToActiveDenied = 33
}

/// Statistics group errors (`STAT_MGMT_ERR_*`).
enum StatError {
    static let invalidGroup = 2
}

/// Settings group errors (`SETTINGS_MGMT_ERR_*`).
enum SettingsError {
    static let keyTooLong = 2
    static let keyNotFound = 3
    static let rootKeyNotFound = 5
}

/// File-system group errors (`FS_MGMT_ERR_*`).
enum FSError {
    static let unknown = 1
    static let fileInvalidName = 2
    static let fileNotFound = 3
    static let fileIsDirectory = 4
    static let fileWriteFailed = 10
    static let fileOffsetNotValid = 11
    static let fileOffsetLargerThanFile = 12
    static let checksumHashNotFound = 13
    static let mountPointNotFound = 14
    static let fileEmpty = 16
}

/// Shell group errors (`SHELL_MGMT_ERR_*`).
enum ShellError {
    static let commandTooLong = 2
    static let emptyCommand = 3
}

/// Enumeration group errors (`ENUM_MGMT_ERR_*`).
enum EnumError {
    static let tooManyGroupEntries = 2
    static let indexTooLarge = 4
}
