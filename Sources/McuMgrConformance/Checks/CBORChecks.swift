import CBOR
import SMP

// The CBOR of requests: both length forms, unknown keys, wrong types, encodings that are not
// the shortest, and answers that carry exactly the documented keys.

extension ConformanceCheck {
    /// The CBOR checks.
    static let cbor: [ConformanceCheck] = [
        ConformanceCheck(
            "cbor.indefinite-map", .cbor,
            expects: "a request map of indefinite length (0xbf … 0xff) is read like a definite one",
            rationale: """
                Zephyr's zcbor decodes both length forms (smp_protocol.rst). zcbor also writes maps with indefinite \
                length unless built ZCBOR_CANONICAL, so Zephyr's own SMP client (CONFIG_SMP_CLIENT: img_mgmt_client.c, \
                os_mgmt_client.c) sends such requests to other devices; streaming encoders do the same when they do \
                not know a map's size up front.
                """, body: indefiniteMap),
        ConformanceCheck(
            "cbor.indefinite-string", .cbor, required: false,
            expects: "a text string sent in chunks (0x7f … 0xff) is read whole, or refused with rc 3",
            rationale: """
                RFC 8949 allows chunked strings; zcbor does not decode them, so Zephyr refuses with rc 3 \
                (MGMT_ERR_EINVAL), which is clean. No client known sends them; the check says which the device does.
                """, body: indefiniteString),
        ConformanceCheck(
            "cbor.unknown-keys", .cbor,
            expects: "keys the command does not know are ignored, before and after the known ones",
            rationale: """
                zcbor_map_decode_bulk() skips unknown keys, whatever their order (smp_protocol.rst). Clients send keys \
                that only some devices read: smpclient's first upload chunk carries image and upgrade, Nordic's iOS \
                library image only when it is not 0 (ImageManager.swift), mcumgr-toolkit boot_mode on reset \
                (mcumgr-toolkit/src/commands/os.rs).
                """, body: unknownKeys),
        ConformanceCheck(
            "cbor.wrong-type", .cbor,
            expects: "a known key with the wrong CBOR type is refused with rc 3 (MGMT_ERR_EINVAL), not read as something else",
            rationale: """
                A key present with the wrong type fails the decode: MGMT_ERR_EINVAL (zcbor_map_decode_bulk, \
                smp_protocol.rst). A device that coerces a byte string into text, or an integer into anything, accepts \
                requests no client meant and hides client bugs.
                """, body: wrongType),
        ConformanceCheck(
            "cbor.encodings", .cbor,
            expects: "canonical requests (shortest heads, sorted keys) and non-canonical ones (longer heads) read alike",
            rationale: """
                smpclient writes canonical CBOR with cbor2 (keys by length: len, off, sha, data, image, upgrade), \
                Apache's Go mcumgr and Nordic's libraries write keys in their own order, and encoders may use heads \
                longer than needed; zcbor reads any of them (ZCBOR_CANONICAL is off by default).
                """, body: encodings),
        ConformanceCheck(
            "cbor.response-keys", .cbor,
            expects: "success answers carry exactly the documented keys (echo: r; parameters: buf_size, buf_count)",
            rationale: """
                smpclient's response models forbid unknown keys (extra="forbid" in _MessageBase, smp/message.py): an \
                echo answered {"r", "rc": 0} fails validation there and surfaces as an error. Legacy builds \
                (CONFIG_MCUMGR_SMP_LEGACY_RC_BEHAVIOUR) add rc: 0.
                """, body: responseKeys),
    ]

    /// An echo request whose payload is `payload` as given.
    private static func rawEcho(_ payload: [UInt8]) -> ProbeRequest {
        ProbeRequest(.write, group: 0, command: 0, payload: payload)
    }

    /// The CBOR bytes of a text string.
    private static func text(_ string: String) -> [UInt8] {
        CBORWriter().encode(.text(string))
    }

    /// Sends an echo built from raw CBOR and expects `expected` back.
    private static func expectEcho(
        _ context: ConformanceContext, _ payload: [UInt8], expected: String, what: String
    ) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let answer = try await context.ask(rawEcho(payload), accepts: { $0.value?["r"]?.textValue == expected || $0.isRefusal }) else {
            return .fail("no answer to an echo with \(what)")
        }
        guard answer.isSuccess, answer.value?["r"]?.textValue == expected else {
            return .fail("an echo with \(what) was answered \(answer.summary)")
        }
        return .pass("an echo with \(what) was answered")
    }

    private static func indefiniteMap(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let outcome = try await expectEcho(
            context, [0xbf] + text("d") + text("indefinite") + [0xff], expected: "indefinite", what: "an indefinite-length map")
        guard outcome.status == .fail else { return outcome }
        return .fail(outcome.observed + ": indefinite-length maps must be read like definite ones")
    }

    private static func indefiniteString(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let payload = [0xa1] + text("d") + [0x7f] + text("chunk") + text("ed") + [0xff]
        guard let answer = try await context.ask(rawEcho(payload), accepts: { $0.value?["r"] != nil || $0.isRefusal }) else {
            return .fail("no answer to an echo whose text came in chunks")
        }
        if answer.rc == SMPReturnCode.invalidArgument.rawValue {
            return .unsupported("a chunked text string was refused with rc 3 (MGMT_ERR_EINVAL), as zcbor does")
        }
        if answer.isSuccess, answer.value?["r"]?.textValue == "chunked" { return .pass("a chunked text string was read whole") }
        return .fail("an echo whose text came in chunks was answered \(answer.summary)")
    }

    private static func unknownKeys(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let value = CBORValue.map([
            (key: .text("aa"), value: .unsigned(1)), (key: .text("d"), value: .text("unknown keys")),
            (key: .text("zz-conformance"), value: .array([.unsigned(1), .text("x")])),
        ])
        let outcome = try await expectEcho(context, CBORWriter(sortsMapKeys: false).encode(value), expected: "unknown keys", what: "unknown keys")
        guard outcome.status == .fail else { return outcome }
        return .fail(outcome.observed + ": unknown keys must be ignored")
    }

    private static func wrongType(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        var seen: [String] = []
        for (what, value) in [("a byte string", CBORValue.bytes(Array("abc".utf8))), ("an integer", .unsigned(42))] {
            let request = ProbeRequest(.write, group: .os, command: 0, value: .textMap(["d": value]))
            guard let answer = try await context.ask(request, accepts: { $0.value?["r"] != nil || $0.isRefusal }) else {
                return .fail("no answer to an echo whose d is \(what)")
            }
            if answer.isSuccess {
                return .fail("an echo whose d is \(what) was accepted (\(answer.summary)): a field of the wrong type must be refused with rc 3 (MGMT_ERR_EINVAL)")
            }
            seen.append("d as \(what): \(answer.summary)")
        }
        return .pass(seen.joined(separator: "; "))
    }

    private static func encodings(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        // Canonical: what ProbeRequest writes. Non-canonical: a map head of 3 bytes, a key head of
        // 2 bytes, a text head of 3 bytes (each longer than needed).
        let canonical = try await expectEcho(context, CBORWriter().encode(.textMap(["d": .text("canonical")])), expected: "canonical", what: "canonical CBOR")
        guard canonical.status == .pass else { return canonical }
        let nonCanonical: [UInt8] = [0xb9, 0x00, 0x01] + [0x78, 0x01, 0x64] + [0x79, 0x00, 0x0d] + Array("non-canonical".utf8)
        let outcome = try await expectEcho(context, nonCanonical, expected: "non-canonical", what: "non-canonical CBOR (heads longer than needed)")
        guard outcome.status == .pass else { return outcome }
        return .pass("canonical and non-canonical echoes were answered alike")
    }

    private static func responseKeys(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        var extra: [String] = []
        if let echo = try await context.echo("keys"), echo.isSuccess, echo.keys != ["r"] {
            extra.append("echo answered keys \(echo.keys) (expected [\"r\"])")
        }
        if let params = try await context.ask(ProbeRequest(.read, group: .os, command: 6)), params.isSuccess,
            Set(params.keys) != ["buf_size", "buf_count"]
        {
            extra.append("MCUmgr parameters answered keys \(params.keys) (expected buf_size, buf_count)")
        }
        if !extra.isEmpty { return .fail(extra.joined(separator: "; ") + ": success answers carry exactly the documented keys") }
        return .pass("echo answered {r}, MCUmgr parameters {buf_size, buf_count}")
    }
}
