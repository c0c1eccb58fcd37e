// The per-group error enums of smp-reference §4.3, each as a code type with names and meanings.

/// OS group (0) errors, `OS_MGMT_ERR_*`.
public struct OSGroupError: SMPGroupErrorCode {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The group.
    public static let group = SMPGroup.os
    /// The C prefix.
    public static let prefix = "OS_MGMT_ERR_"
    /// Unknown error.
    public static let unknown = Self(rawValue: 1)
    /// The info format string holds an unknown character.
    public static let invalidFormat = Self(rawValue: 2)
    /// The bootloader-info query has no answer.
    public static let queryYieldsNoAnswer = Self(rawValue: 3)
    /// The real-time clock was never set.
    public static let rtcNotSet = Self(rawValue: 4)
    /// The real-time clock command failed.
    public static let rtcCommandFailed = Self(rawValue: 5)
    /// The query's response value is not valid.
    public static let queryResponseValueNotValid = Self(rawValue: 6)
    /// Heap statistics could not be fetched.
    public static let heapStatsFetchFailed = Self(rawValue: 7)
    /// Known codes.
    public static let table: [Int: (name: String, text: String)] = [
        0: ("OK", "success"), 1: ("UNKNOWN", "unknown error"),
        2: ("INVALID_FORMAT", "the format string holds an unknown character"),
        3: ("QUERY_YIELDS_NO_ANSWER", "the bootloader has no answer to this query"),
        4: ("RTC_NOT_SET", "the device's clock has not been set"),
        5: ("RTC_COMMAND_FAILED", "the device's clock command failed"),
        6: ("QUERY_RESPONSE_VALUE_NOT_VALID", "the query's answer is not valid"),
        7: ("HEAP_STATS_FETCH_FAILED", "heap statistics could not be read"),
    ]
}

/// Image group (1) errors, `IMG_MGMT_ERR_*`.
public struct ImageGroupError: SMPGroupErrorCode {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The group.
    public static let group = SMPGroup.image
    /// The C prefix.
    public static let prefix = "IMG_MGMT_ERR_"
    /// Unknown error.
    public static let unknown = Self(rawValue: 1)
    /// No image in the slot.
    public static let noImage = Self(rawValue: 3)
    /// No hash matches the one given.
    public static let hashNotFound = Self(rawValue: 8)
    /// No slot is free for an upload.
    public static let noFreeSlot = Self(rawValue: 9)
    /// Writing flash failed.
    public static let flashWriteFailed = Self(rawValue: 12)
    /// The slot number is invalid.
    public static let invalidSlot = Self(rawValue: 14)
    /// The upload offset is missing.
    public static let invalidOffset = Self(rawValue: 20)
    /// The upload length is missing.
    public static let invalidLength = Self(rawValue: 21)
    /// The first chunk is too short to hold an image header.
    public static let invalidImageHeader = Self(rawValue: 22)
    /// The image does not start with the MCUboot magic.
    public static let invalidImageHeaderMagic = Self(rawValue: 23)
    /// The hash is malformed.
    public static let invalidHash = Self(rawValue: 24)
    /// The running image is newer than the upload.
    public static let currentVersionIsNewer = Self(rawValue: 27)
    /// Another image is already pending.
    public static let imageAlreadyPending = Self(rawValue: 28)
    /// The image is too large for the slot.
    public static let invalidImageTooLarge = Self(rawValue: 30)
    /// The chunk goes past the image's length.
    public static let invalidImageDataOverrun = Self(rawValue: 31)
    /// The image may not be confirmed.
    public static let imageConfirmationDenied = Self(rawValue: 32)
    /// The active image cannot be marked for test.
    public static let imageSettingTestToActiveDenied = Self(rawValue: 33)
    /// Known codes.
    public static let table: [Int: (name: String, text: String)] = [
        0: ("OK", "success"), 1: ("UNKNOWN", "unknown error"),
        2: ("FLASH_CONFIG_QUERY_FAIL", "the flash configuration could not be read"),
        3: ("NO_IMAGE", "there is no image in the slot"),
        4: ("NO_TLVS", "the image has no TLV area"),
        5: ("INVALID_TLV", "the image has an invalid TLV"),
        6: ("TLV_MULTIPLE_HASHES_FOUND", "the image has more than one hash TLV"),
        7: ("TLV_INVALID_SIZE", "a TLV of the image has an invalid size"),
        8: ("HASH_NOT_FOUND", "no image on the device has that hash"),
        9: ("NO_FREE_SLOT", "no slot is free: the secondary slot holds an image in use (pending, confirmed or active)"),
        10: ("FLASH_OPEN_FAILED", "the flash area could not be opened"),
        11: ("FLASH_READ_FAILED", "reading flash failed"),
        12: ("FLASH_WRITE_FAILED", "writing flash failed"),
        13: ("FLASH_ERASE_FAILED", "erasing flash failed"),
        14: ("INVALID_SLOT", "the slot number is invalid"),
        15: ("NO_FREE_MEMORY", "the device is out of memory"),
        16: ("FLASH_CONTEXT_ALREADY_SET", "the flash context is already set"),
        17: ("FLASH_CONTEXT_NOT_SET", "the flash context is not set"),
        18: ("FLASH_AREA_DEVICE_NULL", "the flash area has no device"),
        19: ("INVALID_PAGE_OFFSET", "invalid page offset"),
        20: ("INVALID_OFFSET", "the upload request has no offset"),
        21: ("INVALID_LENGTH", "the first upload chunk has no length"),
        22: ("INVALID_IMAGE_HEADER", "the first chunk is too short to hold an image header"),
        23: ("INVALID_IMAGE_HEADER_MAGIC", "the data does not start with the MCUboot image magic: not an MCUboot image"),
        24: ("INVALID_HASH", "the hash is missing or not 32 bytes"),
        25: ("INVALID_FLASH_ADDRESS", "the image's load address does not match the slot"),
        26: ("VERSION_GET_FAILED", "the running image's version could not be read"),
        27: ("CURRENT_VERSION_IS_NEWER", "the running image is not older than the upload (downgrade refused)"),
        28: ("IMAGE_ALREADY_PENDING", "another image is already pending; reset or confirm first"),
        29: ("INVALID_IMAGE_VECTOR_TABLE", "the image's vector table is invalid"),
        30: ("INVALID_IMAGE_TOO_LARGE", "the image is larger than the slot"),
        31: ("INVALID_IMAGE_DATA_OVERRUN", "the chunk goes past the image length given in the first chunk"),
        32: ("IMAGE_CONFIRMATION_DENIED", "this image may not be confirmed"),
        33: ("IMAGE_SETTING_TEST_TO_ACTIVE_DENIED", "the running image cannot be marked for test"),
        34: ("ACTIVE_SLOT_NOT_KNOWN", "the active slot is not known"),
    ]
}

/// Statistics group (2) errors, `STAT_MGMT_ERR_*`.
public struct StatsGroupError: SMPGroupErrorCode {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The group.
    public static let group = SMPGroup.stats
    /// The C prefix.
    public static let prefix = "STAT_MGMT_ERR_"
    /// No statistics group of that name.
    public static let invalidGroup = Self(rawValue: 2)
    /// Known codes.
    public static let table: [Int: (name: String, text: String)] = [
        0: ("OK", "success"), 1: ("UNKNOWN", "unknown error"),
        2: ("INVALID_GROUP", "no statistics group of that name"),
        3: ("INVALID_STAT_NAME", "invalid statistic name"),
        4: ("INVALID_STAT_SIZE", "invalid statistic size"),
        5: ("WALK_ABORTED", "walking the statistics was aborted"),
    ]
}

/// Settings group (3) errors, `SETTINGS_MGMT_ERR_*`.
public struct SettingsGroupError: SMPGroupErrorCode {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The group.
    public static let group = SMPGroup.settings
    /// The C prefix.
    public static let prefix = "SETTINGS_MGMT_ERR_"
    /// The key is too long.
    public static let keyTooLong = Self(rawValue: 2)
    /// No setting with that key.
    public static let keyNotFound = Self(rawValue: 3)
    /// No settings handler for the key's root.
    public static let rootKeyNotFound = Self(rawValue: 5)
    /// Known codes.
    public static let table: [Int: (name: String, text: String)] = [
        0: ("OK", "success"), 1: ("UNKNOWN", "unknown error"),
        2: ("KEY_TOO_LONG", "the setting's name is too long"),
        3: ("KEY_NOT_FOUND", "no setting with that name"),
        4: ("READ_NOT_SUPPORTED", "this setting cannot be read"),
        5: ("ROOT_KEY_NOT_FOUND", "no settings handler for that name's root"),
        6: ("WRITE_NOT_SUPPORTED", "this setting cannot be written"),
        7: ("DELETE_NOT_SUPPORTED", "this setting cannot be deleted"),
        8: ("SAVE_NOT_SUPPORTED", "settings cannot be saved"),
    ]
}

/// File-system group (8) errors, `FS_MGMT_ERR_*`.
public struct FSGroupError: SMPGroupErrorCode {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The group.
    public static let group = SMPGroup.fs
    /// The C prefix.
    public static let prefix = "FS_MGMT_ERR_"
    /// The path is invalid.
    public static let fileInvalidName = Self(rawValue: 2)
    /// No file at that path.
    public static let fileNotFound = Self(rawValue: 3)
    /// The path is a directory.
    public static let fileIsDirectory = Self(rawValue: 4)
    /// The upload offset is not where the device is.
    public static let fileOffsetNotValid = Self(rawValue: 11)
    /// The offset is past the end of the file.
    public static let fileOffsetLargerThanFile = Self(rawValue: 12)
    /// The hash or checksum type is not supported.
    public static let checksumHashNotFound = Self(rawValue: 13)
    /// No file system is mounted where the path begins.
    public static let mountPointNotFound = Self(rawValue: 14)
    /// The file is empty.
    public static let fileEmpty = Self(rawValue: 16)
    /// Known codes.
    public static let table: [Int: (name: String, text: String)] = [
        0: ("OK", "success"), 1: ("UNKNOWN", "unknown error"),
        2: ("FILE_INVALID_NAME", "the path is invalid"),
        3: ("FILE_NOT_FOUND", "no file at that path"),
        4: ("FILE_IS_DIRECTORY", "the path is a directory"),
        5: ("FILE_OPEN_FAILED", "the file could not be opened"),
        6: ("FILE_SEEK_FAILED", "seeking in the file failed"),
        7: ("FILE_READ_FAILED", "reading the file failed"),
        8: ("FILE_TRUNCATE_FAILED", "truncating the file failed"),
        9: ("FILE_DELETE_FAILED", "deleting the file failed"),
        10: ("FILE_WRITE_FAILED", "writing the file failed"),
        11: ("FILE_OFFSET_NOT_VALID", "the offset is not where the device's transfer stands"),
        12: ("FILE_OFFSET_LARGER_THAN_FILE", "the offset is past the end of the file"),
        13: ("CHECKSUM_HASH_NOT_FOUND", "the device does not support that hash or checksum"),
        14: ("MOUNT_POINT_NOT_FOUND", "no file system is mounted there"),
        15: ("READ_ONLY_FILESYSTEM", "the file system is read-only"),
        16: ("FILE_EMPTY", "the file is empty"),
        17: ("FILE_CLOSE_FAILED", "closing the file failed"),
    ]
}

/// Shell group (9) errors, `SHELL_MGMT_ERR_*`.
public struct ShellGroupError: SMPGroupErrorCode {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The group.
    public static let group = SMPGroup.shell
    /// The C prefix.
    public static let prefix = "SHELL_MGMT_ERR_"
    /// The command line is too long.
    public static let commandTooLong = Self(rawValue: 2)
    /// The command line is empty.
    public static let emptyCommand = Self(rawValue: 3)
    /// Known codes.
    public static let table: [Int: (name: String, text: String)] = [
        0: ("OK", "success"), 1: ("UNKNOWN", "unknown error"),
        2: ("COMMAND_TOO_LONG", "the command line is too long for the device's shell"),
        3: ("EMPTY_COMMAND", "the command line is empty"),
    ]
}

/// Enumeration group (10) errors, `ENUM_MGMT_ERR_*`.
public struct EnumerationGroupError: SMPGroupErrorCode {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The group.
    public static let group = SMPGroup.enumeration
    /// The C prefix.
    public static let prefix = "ENUM_MGMT_ERR_"
    /// The index is past the last group.
    public static let indexTooLarge = Self(rawValue: 4)
    /// Known codes.
    public static let table: [Int: (name: String, text: String)] = [
        0: ("OK", "success"), 1: ("UNKNOWN", "unknown error"),
        2: ("TOO_MANY_GROUP_ENTRIES", "the filter names more groups than the device can answer"),
        3: ("INSUFFICIENT_HEAP_FOR_ENTRIES", "the device has no memory for the answer"),
        4: ("INDEX_TOO_LARGE", "the index is past the last group"),
    ]
}

/// Zephyr basic group (63) errors, `ZEPHYRBASIC_MGMT_ERR_*`.
public struct BasicGroupError: SMPGroupErrorCode {
    /// The number on the wire.
    public let rawValue: Int
    /// Makes a code from its number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The group.
    public static let group = SMPGroup.zephyrBasic
    /// The C prefix.
    public static let prefix = "ZEPHYRBASIC_MGMT_ERR_"
    /// Erasing the storage partition failed.
    public static let flashEraseFailed = Self(rawValue: 4)
    /// Known codes.
    public static let table: [Int: (name: String, text: String)] = [
        0: ("OK", "success"), 1: ("UNKNOWN", "unknown error"),
        2: ("FLASH_OPEN_FAILED", "the storage partition could not be opened"),
        3: ("FLASH_CONFIG_QUERY_FAIL", "the flash configuration could not be read"),
        4: ("FLASH_ERASE_FAILED", "erasing the storage partition failed"),
    ]
}
