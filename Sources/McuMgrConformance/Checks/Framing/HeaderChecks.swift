import CBOR
import SMP

// The SMP header and the error forms: versions, operations, sequence numbers, unknown groups and
// commands, group errors in SMP v1 and v2.

extension ConformanceCheck {
    /// The header and error-form checks.
    static let header: [ConformanceCheck] = [
        ConformanceCheck(
            "framing.v2-header", .framing,
            expects: "an SMP v2 request is answered with version 1, op 1 for a read and 3 for a write, flags 0, a true length",
            rationale: """
                The response header copies group, sequence and command, sets the version to min(request, 1) and the \
                operation to 1 for a read and 3 otherwise (smp.c, smp_rsp_op()). mcumgr-toolkit refuses an answer whose \
                group, command or operation differ from the request's or whose length field is not the payload's \
                (UnexpectedResponse in receive_frame, mcumgr-toolkit/src/transport/mod.rs); smpclient reads the header \
                and parses the payload by it (smp/header.py, smp/message.py).
                """, body: v2Header),
        ConformanceCheck(
            "framing.v1-header", .framing, required: false,
            expects: "an SMP v1 request is answered in SMP v1, or refused with rc 12 when the device is v2 only",
            rationale: """
                The answer's version is min(request, 1); a device built without CONFIG_MCUMGR_SMP_SUPPORT_ORIGINAL_PROTOCOL \
                answers rc 12 (MGMT_ERR_UNSUPPORTED_TOO_OLD). Fielded clients still send v1: Apache's Go mcumgr \
                (nmxact) and Nordic's libraries before their SMP v2 support.
                """, body: v1Header),
        ConformanceCheck(
            "framing.sequence", .framing,
            expects: "every answer carries its request's sequence number (0, 1, 127, 128, 254, 255)",
            rationale: """
                Zephyr copies the sequence number into the answer and never checks it (smp.c). smpclient raises \
                SMPBadSequence when it differs (SMPClient.request, smpclient/__init__.py; smp/message.py numbers requests \
                0 to 254); \
                mcumgr-toolkit skips answers with another sequence number and so times out (receive_frame, \
                mcumgr-toolkit/src/transport/mod.rs); Nordic's iOS library matches and reassembles notifications by it \
                (McuMgrBleTransport+CBPeripheralDelegate.swift); our session matches answers by it.
                """, body: sequence),
        ConformanceCheck(
            "framing.unknown-group", .framing,
            expects: "a request to a group the device lacks is answered rc 8 (MGMT_ERR_ENOTSUP) at the top level, in v2 as in v1",
            rationale: """
                Unknown groups and commands yield MGMT_ERR_ENOTSUP (smp.c); SMP-level statuses are a top-level "rc" in \
                SMP v2 as well (smp_protocol.rst). mcumgr-toolkit recognises "not supported" only as a v1-form rc 8 \
                (ExecuteError::command_not_supported, mcumgr-toolkit/src/connection.rs); smpclient rejects \
                err {group, rc 8} because its ErrorV2 types rc by the group's own enum (smp/error.py).
                """, body: unknownGroup),
        ConformanceCheck(
            "framing.unknown-command", .framing,
            expects: "an unknown command of a known group is answered rc 8 (MGMT_ERR_ENOTSUP) at the top level, in v2 as in v1",
            rationale: """
                As for unknown groups (smp.c): tools probe optional commands (bootloader info, date-time, OS info) and \
                fall back on rc 8 (mcumgr-toolkit's command_not_supported, our CLI's hints).
                """, body: unknownCommand),
        ConformanceCheck(
            "framing.group-error-v2", .framing,
            expects: "a group's own error reaches an SMP v2 request as err {group, rc}",
            rationale: """
                In SMP v2 a command's error is returned as "err": {"group", "rc"} with the group's own code; translated \
                into a v1 rc it loses what went wrong (a missing hash and a bad image both become MGMT_ERR_EUNKNOWN). \
                smpclient parses ErrorV2 by group (smpclient/__init__.py, smp/error.py), mcumgr-toolkit reports \
                DeviceError::V2 with the group's error name (mcumgr-toolkit/src/connection.rs).
                """, body: groupErrorV2),
        ConformanceCheck(
            "framing.group-error-v1", .framing, required: false,
            expects: "the same group error reaches an SMP v1 request as a non-zero top-level rc",
            rationale: """
                SMP v1 has no err map: the group translates its code into an MGMT_ERR value (smp_protocol.rst). Clients \
                of the original protocol read only "rc" (Apache's Go mcumgr, mcumgr-client).
                """, body: groupErrorV1),
    ]

    private static func v2Header(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let echo = try await context.echo("v2 header") else { return .fail("no answer to an SMP v2 echo (op 2)") }
        var problems = headerProblems(echo, expectedVersion: 1, expectedOperation: 3, kind: "a write")
        guard let read = try await context.ask(ProbeRequest(.read, group: .os, command: 6)) else {
            return .fail("no answer to an SMP v2 read (MCUmgr parameters, op 0)")
        }
        problems += headerProblems(read, expectedVersion: 1, expectedOperation: 1, kind: "a read")
        if !problems.isEmpty { return .fail(problems.joined(separator: "; ")) }
        return .pass("a write was answered with op 3 and a read with op 1, version 1, flags 0, lengths true")
    }

    /// What is wrong with an answer's header.
    static func headerProblems(_ answer: ProbeAnswer, expectedVersion: UInt8, expectedOperation: UInt8, kind: String) -> [String] {
        var problems: [String] = []
        if answer.versionBits != expectedVersion {
            problems.append("\(kind) was answered with version bits \(answer.versionBits), not \(expectedVersion)")
        }
        if answer.operationBits != expectedOperation {
            problems.append("\(kind) was answered with op \(answer.operationBits), not \(expectedOperation): a read is answered with op 1, a write with op 3")
        }
        if answer.flags != 0 { problems.append("\(kind) was answered with flags \(answer.flags), not 0") }
        if !answer.lengthMatches {
            problems.append("\(kind) was answered with a length field of \(answer.declaredLength) and \(answer.payload.count) bytes after the header")
        }
        return problems
    }

    private static func v1Header(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let echo = try await context.echo("v1 header", version: .v1) else { return .fail("no answer to an SMP v1 echo") }
        if echo.rc == SMPReturnCode.unsupportedTooOld.rawValue {
            return .unsupported("answered rc 12 (MGMT_ERR_UNSUPPORTED_TOO_OLD): built for SMP v2 only")
        }
        let problems = headerProblems(echo, expectedVersion: 0, expectedOperation: 3, kind: "a v1 write")
        if !problems.isEmpty { return .fail(problems.joined(separator: "; ")) }
        guard echo.isSuccess else { return .fail("a v1 echo was answered \(echo.summary)") }
        return .pass("a v1 echo was answered in SMP v1 (version bits 0, op 3)")
    }

    private static func sequence(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        var wrong: [String] = []
        var unanswered: [UInt8] = []
        for number: UInt8 in [0, 1, 127, 128, 254, 255] {
            let text = "sequence \(number)"
            var request = ProbeRequest.echo(text)
            request.sequence = number
            let answer = try await context.ask(request, keepsSequence: true) { $0.value?["r"]?.textValue == text }
            guard let answer else {
                unanswered.append(number)
                continue
            }
            if answer.sequence != number { wrong.append("\(number) → \(answer.sequence)") }
        }
        if !wrong.isEmpty {
            return .fail("answers do not carry the request's sequence number (sent → answered: \(wrong.joined(separator: ", ")))")
        }
        if !unanswered.isEmpty { return .fail("no answer to the requests with sequence number \(unanswered.map(String.init).joined(separator: ", "))") }
        return .pass("all six answers carried their request's sequence number")
    }

    private static func unknownGroup(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        // Group 61: between the Zephyr groups (0–11) and basic (63), assigned to nothing.
        try await notSupported(context, group: 61, command: 0, what: "group 61")
    }

    private static func unknownCommand(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        try await notSupported(context, group: 0, command: 250, what: "OS command 250")
    }

    /// Sends a read nobody implements in v2 and in v1, expecting a top-level rc 8 to each.
    private static func notSupported(_ context: ConformanceContext, group: UInt16, command: UInt8, what: String) async throws(ConformanceAbort) -> ConformanceOutcome {
        var seen: [String] = []
        for version in [SMPVersion.v2, .v1] {
            let name = version == .v2 ? "SMP v2" : "SMP v1"
            let request = ProbeRequest(.read, group: group, command: command, payload: [0xa0], version: version)
            guard let answer = try await context.ask(request) else { return .fail("no answer to \(what) in \(name)") }
            if version == .v1, answer.rc == SMPReturnCode.unsupportedTooOld.rawValue {
                seen.append("SMP v1 is refused (rc 12)")
                continue
            }
            if let error = answer.groupError {
                return .fail("\(what) in \(name) was answered err {group \(error.group), rc \(error.rc)}: MGMT_ERR_ENOTSUP is an SMP-level status, a top-level rc 8 in v2 too")
            }
            guard answer.rc == SMPReturnCode.notSupported.rawValue else {
                return .fail("\(what) in \(name) was answered \(answer.summary), not rc 8 (MGMT_ERR_ENOTSUP)")
            }
            seen.append("\(name): rc 8")
        }
        return .pass("\(what) answered " + seen.joined(separator: ", "))
    }

    /// Requests that fail with a group error and change nothing, tried in turn: OS info with a
    /// format character nobody defines, bootloader info with an unknown query, image state write
    /// with a hash no slot holds.
    static func groupErrorProbes(version: SMPVersion) -> [(what: String, request: ProbeRequest)] {
        [
            ("OS info with format \"!\"", ProbeRequest(.read, group: .os, command: 7, value: .textMap(["format": .text("!")]), version: version)),
            ("bootloader info with query \"conformance\"", ProbeRequest(.read, group: .os, command: 8, value: .textMap(["query": .text("conformance")]), version: version)),
            (
                "image state write with an unknown hash",
                ProbeRequest(.write, group: .image, command: 0, value: .textMap(["hash": .bytes(unknownHash), "confirm": .bool(false)]), version: version)
            ),
        ]
    }

    /// A hash no slot holds.
    static let unknownHash = [UInt8](repeating: 0xa5, count: 32)

    private static func groupErrorV2(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        for (what, request) in groupErrorProbes(version: .v2) {
            guard let answer = try await context.ask(request) else { return .fail("no answer to \(what)") }
            if answer.rc == SMPReturnCode.notSupported.rawValue { continue }
            if let error = answer.groupError { return .pass("\(what) was answered err {group \(error.group), rc \(error.rc)}") }
            if answer.isRefusal {
                return .fail("\(what) was answered \(answer.summary) to an SMP v2 request: a group error reaches v2 as err {group, rc}, not as v1's translated rc")
            }
            return .fail("\(what) was answered with success (\(answer.summary))")
        }
        return .unsupported("none of OS info, bootloader info and image state write is offered (rc 8 to each)")
    }

    private static func groupErrorV1(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        for (what, request) in groupErrorProbes(version: .v1) {
            guard let answer = try await context.ask(request) else { return .fail("no answer to \(what) in SMP v1") }
            if answer.rc == SMPReturnCode.unsupportedTooOld.rawValue { return .unsupported("SMP v1 is refused (rc 12)") }
            if answer.rc == SMPReturnCode.notSupported.rawValue { continue }
            if let error = answer.groupError {
                return .fail("\(what) in SMP v1 was answered err {group \(error.group), rc \(error.rc)}: v1 has no err map, only a top-level rc")
            }
            if answer.isRefusal { return .pass("\(what) in SMP v1 was answered \(answer.summary)") }
            return .fail("\(what) in SMP v1 was answered with success (\(answer.summary))")
        }
        return .unsupported("none of OS info, bootloader info and image state write is offered (rc 8 to each)")
    }
}
