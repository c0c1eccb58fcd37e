import CBOR
import Hex
import SMP

// The settings group: a key that does not exist, and a write/read/delete round trip on a key the
// user names (--settings-key) that puts the key back as it was.

extension ConformanceCheck {
    /// The settings checks.
    static let settings: [ConformanceCheck] = [
        ConformanceCheck(
            "settings.missing-key", .settings, required: false,
            expects: "reading a key that does not exist is refused (SETTINGS_MGMT_ERR_KEY_NOT_FOUND), not answered empty",
            rationale: """
                settings read answers SETTINGS_MGMT_ERR_KEY_NOT_FOUND (3), or ROOT_KEY_NOT_FOUND (5) for a root with no \
                handler (settings_mgmt.c). Tools tell "not set" from "set to nothing" by it (mcumgr-toolkit's \
                settings_read, our `config` command).
                """, body: missingKey),
        ConformanceCheck(
            "settings.round-trip", .settings, access: .writes,
            expects: "a value written reads back the same; the key is then restored, or deleted and refused again",
            rationale: """
                settings write, read and delete (commands 0 and 1, settings_mgmt.c) as mcumgr-toolkit's settings_write, \
                settings_read and settings_delete use them (client.rs). Needs --settings-key; its value is read first \
                and written back, or the key deleted when it did not exist. Nothing is saved to storage.
                """, body: roundTrip),
    ]

    /// A settings read of `name`.
    private static func read(_ name: String) -> ProbeRequest {
        ProbeRequest(.read, group: .settings, command: 0, value: .textMap(["name": .text(name), "max_size": .unsigned(0xffff)]))
    }

    /// Whether `answer` refuses a key as absent (KEY_NOT_FOUND, or ROOT_KEY_NOT_FOUND, in either form).
    private static func saysAbsent(_ answer: ProbeAnswer) -> Bool {
        if let error = answer.groupError { return error.group == 3 && (error.rc == 3 || error.rc == 5) }
        return answer.isRefusal && answer.rc != SMPReturnCode.notSupported.rawValue
    }

    private static func missingKey(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let name = "conformance/absent-\(UInt16.random(in: 1000...9999))"
        guard let answer = try await context.ask(read(name)) else { return .fail("no answer to reading \(name)") }
        if answer.rc == SMPReturnCode.notSupported.rawValue { return .unsupported("settings read answered rc 8 (MGMT_ERR_ENOTSUP)") }
        if answer.isSuccess { return .fail("reading \(name), which does not exist, was answered with success: \(answer.summary)") }
        guard saysAbsent(answer) else { return .fail("reading \(name) was answered \(answer.summary)") }
        return .pass("reading \(name) was refused with \(answer.summary)")
    }

    private static func roundTrip(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let key = context.options.settingsKey else { return .skipped("needs --settings-key KEY: a key the run may write and restore") }
        guard let first = try await context.ask(read(key)) else { return .fail("no answer to reading \(key)") }
        if first.rc == SMPReturnCode.notSupported.rawValue { return .unsupported("settings read answered rc 8 (MGMT_ERR_ENOTSUP)") }
        let original: [UInt8]?
        if first.isSuccess, let value = first.value?["val"]?.bytesValue {
            if let limit = first.value?["max_size"]?.intValue, value.count >= limit {
                return .skipped("\(key) may be longer than the device reads at once (max_size \(limit)): it could not be restored")
            }
            original = value
        } else if saysAbsent(first) {
            original = nil
        } else {
            return .fail("reading \(key) was answered \(first.summary)")
        }
        let probe: [UInt8] = [0xc0, 0x0f, 0x0f, 0x1e, 0x5e, 0x77, 0x1a, 0x95]
        if let problem = try await writeAndRead(context, key: key, value: probe) { return .fail(problem) }
        if let original {
            if let problem = try await writeAndRead(context, key: key, value: original) { return .fail("the probe value read back, but restoring \(key) failed: \(problem)") }
            return .pass("wrote \(probe.hexString), read it back, and wrote back the \(original.count)-byte original")
        }
        let delete = ProbeRequest(.write, group: .settings, command: 1, value: .textMap(["name": .text(key)]))
        guard let deleted = try await context.send(delete), deleted.isSuccess else { return .fail("deleting \(key) after the round trip failed") }
        guard let after = try await context.ask(read(key)), saysAbsent(after) else {
            return .fail("after deleting \(key) reading it was not refused")
        }
        return .pass("wrote \(probe.hexString), read it back, deleted the key and saw it refused again")
    }

    /// Writes `value` to `key` and reads it back; what went wrong, or `nil`.
    private static func writeAndRead(_ context: ConformanceContext, key: String, value: [UInt8]) async throws(ConformanceAbort) -> String? {
        let write = ProbeRequest(.write, group: .settings, command: 0, value: .textMap(["name": .text(key), "val": .bytes(value)]))
        guard let answer = try await context.send(write) else { return "no answer to writing \(key)" }
        guard answer.isSuccess else { return "writing \(key) was answered \(answer.summary)" }
        guard let back = try await context.ask(read(key)) else { return "no answer to reading \(key) back" }
        guard back.isSuccess, back.value?["val"]?.bytesValue == value else { return "\(key) was written \(value.hexString) and read back as \(back.summary)" }
        return nil
    }
}
