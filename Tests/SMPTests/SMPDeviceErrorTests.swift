import CBOR
import SMP
import Testing

/// Reading a response's status (`err` first, then a non-zero `rc`) and naming it for people.
@Suite("SMP device errors")
struct SMPDeviceErrorTests {
    static func err(_ group: UInt64, _ rc: UInt64) -> CBORValue {
        .textMap(["err": .textMap(["group": .unsigned(group), "rc": .unsigned(rc)])])
    }

    @Test("success: no rc, rc 0, or an err with rc 0")
    func success() throws {
        #expect(try SMPDeviceError(response: .map([])) == nil)
        #expect(try SMPDeviceError(response: .textMap(["rc": .unsigned(0)])) == nil)
        #expect(try SMPDeviceError(response: .textMap(["r": .text("hello")])) == nil)
        #expect(try SMPDeviceError(response: Self.err(1, 0)) == nil)
    }

    @Test("a v2 err map becomes the group's typed error", arguments: [
        (UInt64(0), UInt64(4), SMPDeviceError.os(.rtcNotSet)),
        (1, 8, .image(.hashNotFound)),
        (1, 9, .image(.noFreeSlot)),
        (1, 23, .image(.invalidImageHeaderMagic)),
        (2, 2, .stats(.init(rawValue: 2))),
        (3, 3, .settings(.init(rawValue: 3))),
        (8, 3, .fs(.fileNotFound)),
        (9, 2, .shell(.commandTooLong)),
        (10, 4, .enumeration(.indexTooLarge)),
        (63, 4, .basic(.flashEraseFailed)),
        (64, 3, .otherGroup(group: 64, rc: 3)),
        (5, 1, .otherGroup(group: 5, rc: 1)),
    ])
    func groupErrors(_ group: UInt64, _ rc: UInt64, _ expected: SMPDeviceError) throws {
        #expect(try SMPDeviceError(response: Self.err(group, rc)) == expected)
        // Also in the indefinite-length form a default Zephyr build sends, with other keys beside it.
        let writer = CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: true)
        let zephyr = writer.encode(.map([(key: .text("len"), value: .unsigned(12))] + Self.err(group, rc).mapEntries!))
        #expect(try SMPDeviceError(response: try! CBORReader().decode(zephyr)) == expected)
    }

    @Test("err comes before rc; a non-zero rc alone is an SMP-level status with its reason")
    func precedence() throws {
        let both = CBORValue.textMap(["rc": .unsigned(3), "err": .textMap(["group": .unsigned(1), "rc": .unsigned(8)])])
        #expect(try SMPDeviceError(response: both) == .image(.hashNotFound))
        #expect(try SMPDeviceError(response: .textMap(["rc": .unsigned(8)])) == .status(.notSupported, reason: nil))
        #expect(try SMPDeviceError(response: .textMap(["rc": .unsigned(6), "rsn": .text("downgrade")])) == .status(.badState, reason: "downgrade"))
        #expect(try SMPDeviceError(response: .textMap(["rc": .unsigned(300)])) == .status(SMPReturnCode(rawValue: 300), reason: nil))
    }

    @Test("a malformed status is an invalid response, never success", arguments: [
        CBORValue.textMap(["err": .textMap(["group": .unsigned(70_000), "rc": .negative(4)])]),
        .textMap(["err": .textMap(["group": .unsigned(1)])]),
        .textMap(["err": .textMap(["rc": .unsigned(8)])]),
        .textMap(["err": .unsigned(8)]),
        .textMap(["err": .textMap(["group": .text("1"), "rc": .unsigned(8)])]),
        .textMap(["err": .textMap(["group": .unsigned(1), "rc": .unsigned(1 << 40)])]),
        .textMap(["rc": .text("8")]),
        .textMap(["rc": .unsigned(UInt64.max)]),
        .textMap(["rc": .unsigned(1 << 33)]),
        .textMap(["rc": .unsigned(6), "rsn": .unsigned(1)]),
    ])
    func malformedStatus(_ response: CBORValue) {
        do {
            let error = try SMPDeviceError(response: response)
            Issue.record("\(response) was read as \(String(describing: error))")
        } catch {
            guard case .invalidResponse(let why) = error else {
                Issue.record("\(response) gave \(error)")
                return
            }
            #expect(why.contains("rc") || why.contains("err") || why.contains("rsn"))
        }
    }

    @Test("a big integer rc is named as such")
    func bigIntegerRC() {
        #expect(throws: SMPError.self) { try SMPDeviceError(response: .textMap(["rc": .unsigned(UInt64.max)])) }
        do {
            _ = try SMPDeviceError(response: .textMap(["rc": .unsigned(UInt64.max)]))
        } catch {
            #expect("\(error)".contains("too big"))
        }
    }

    @Test("descriptions carry the C name of the code", arguments: [
        (SMPDeviceError.image(.hashNotFound), "IMG_MGMT_ERR_HASH_NOT_FOUND"),
        (.image(.noFreeSlot), "IMG_MGMT_ERR_NO_FREE_SLOT"),
        (.os(.rtcNotSet), "OS_MGMT_ERR_RTC_NOT_SET"),
        (.stats(.init(rawValue: 3)), "STAT_MGMT_ERR_INVALID_STAT_NAME"),
        (.settings(.init(rawValue: 3)), "SETTINGS_MGMT_ERR_KEY_NOT_FOUND"),
        (.fs(.fileNotFound), "FS_MGMT_ERR_FILE_NOT_FOUND"),
        (.shell(.emptyCommand), "SHELL_MGMT_ERR_EMPTY_COMMAND"),
        (.enumeration(.indexTooLarge), "ENUM_MGMT_ERR_INDEX_TOO_LARGE"),
        (.basic(.flashEraseFailed), "ZEPHYRBASIC_MGMT_ERR_FLASH_ERASE_FAILED"),
        (.status(.notSupported, reason: nil), "MGMT_ERR_ENOTSUP"),
        (.status(.unsupportedTooNew, reason: nil), "MGMT_ERR_UNSUPPORTED_TOO_NEW"),
        (.status(.badState, reason: "downgrade"), "downgrade"),
    ])
    func descriptions(_ error: SMPDeviceError, _ name: String) {
        #expect(error.description.contains(name), "\(error.description)")
        #expect(SMPError.device(error).description.contains(name))
    }

    @Test("unknown codes keep their number and are called unrecognized, never success")
    func unknownCodes() {
        let image = SMPDeviceError.image(.init(rawValue: 99))
        #expect(image.description.contains("99"))
        #expect(image.description.contains("unrecognized"))
        #expect(SMPDeviceError.status(SMPReturnCode(rawValue: 77), reason: nil).description.contains("77"))
        #expect(SMPDeviceError.otherGroup(group: 70, rc: 2).description.contains("70"))
        #expect(SMPReturnCode(rawValue: 258).name == "MGMT_ERR_EPERUSER+2")
    }

    @Test("the image group table matches smp-reference §4.3")
    func imageTable() {
        let names = [
            0: "OK", 1: "UNKNOWN", 2: "FLASH_CONFIG_QUERY_FAIL", 3: "NO_IMAGE", 4: "NO_TLVS", 5: "INVALID_TLV",
            6: "TLV_MULTIPLE_HASHES_FOUND", 7: "TLV_INVALID_SIZE", 8: "HASH_NOT_FOUND", 9: "NO_FREE_SLOT",
            10: "FLASH_OPEN_FAILED", 11: "FLASH_READ_FAILED", 12: "FLASH_WRITE_FAILED", 13: "FLASH_ERASE_FAILED",
            14: "INVALID_SLOT", 15: "NO_FREE_MEMORY", 16: "FLASH_CONTEXT_ALREADY_SET", 17: "FLASH_CONTEXT_NOT_SET",
            18: "FLASH_AREA_DEVICE_NULL", 19: "INVALID_PAGE_OFFSET", 20: "INVALID_OFFSET", 21: "INVALID_LENGTH",
            22: "INVALID_IMAGE_HEADER", 23: "INVALID_IMAGE_HEADER_MAGIC", 24: "INVALID_HASH", 25: "INVALID_FLASH_ADDRESS",
            26: "VERSION_GET_FAILED", 27: "CURRENT_VERSION_IS_NEWER", 28: "IMAGE_ALREADY_PENDING",
            29: "INVALID_IMAGE_VECTOR_TABLE", 30: "INVALID_IMAGE_TOO_LARGE", 31: "INVALID_IMAGE_DATA_OVERRUN",
            32: "IMAGE_CONFIRMATION_DENIED", 33: "IMAGE_SETTING_TEST_TO_ACTIVE_DENIED", 34: "ACTIVE_SLOT_NOT_KNOWN",
        ]
        for (code, name) in names {
            #expect(ImageGroupError(rawValue: code).name == "IMG_MGMT_ERR_" + name)
        }
        let mgmt = [0: "EOK", 1: "EUNKNOWN", 2: "ENOMEM", 3: "EINVAL", 4: "ETIMEOUT", 5: "ENOENT", 6: "EBADSTATE",
                    7: "EMSGSIZE", 8: "ENOTSUP", 9: "ECORRUPT", 10: "EBUSY", 11: "EACCESSDENIED",
                    12: "UNSUPPORTED_TOO_OLD", 13: "UNSUPPORTED_TOO_NEW"]
        for (code, name) in mgmt {
            #expect(SMPReturnCode(rawValue: code).name == "MGMT_ERR_" + name)
        }
    }
}
