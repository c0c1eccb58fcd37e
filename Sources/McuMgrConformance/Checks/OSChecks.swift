import CBOR
import SMP

// The OS group: echo both ways and at several sizes, MCUmgr parameters, date-time, bootloader
// information, and a reset the device comes back from.

extension ConformanceCheck {
    /// The OS checks.
    static let os: [ConformanceCheck] = [
        ConformanceCheck(
            "os.echo-write", .os,
            expects: "echo sent as a write (op 2) returns its text at every size up to the largest request",
            rationale: """
                Echo has the same handler for read and write (os_mgmt.c). smpclient sends EchoWrite (op 2, \
                smpclient/requests/os_management.py), as Apache's Go mcumgr does; the sizes cross the CBOR head \
                boundaries (23/24, 255/256 bytes) and end near the largest request the device and the link take.
                """, body: echoWrite),
        ConformanceCheck(
            "os.echo-read", .os,
            expects: "echo sent as a read (op 0) returns its text",
            rationale: """
                mcumgr-toolkit sends echo as a read ((read, MGMT_GROUP_ID_OS, 0): os::Echo, \
                mcumgr-toolkit/src/commands/mod.rs) and uses it to check the connection (check_connection, client.rs); \
                a device with a write handler only answers it rc 8.
                """, body: echoRead),
        ConformanceCheck(
            "os.params", .os,
            expects: "MCUmgr parameters answer buf_size and buf_count as unsigned integers the device lives up to",
            rationale: """
                buf_size and buf_count (OS command 6) are how clients size frames and pipelines: smpclient reads them at \
                connect (SMPClient._initialize, smpclient/__init__.py), mcumgr-toolkit's use_auto_frame_size \
                (client.rs), our session's negotiate. framing.exact-buf-size and framing.buffer-count check the device \
                keeps to them; a device built without the command answers rc 8.
                """, body: params),
        ConformanceCheck(
            "os.datetime", .os, required: false,
            expects: "date-time reads as YYYY-MM-DDTHH:MM:SS[.mmm] and reads back what was set",
            rationale: """
                The device formats date-time as YYYY-MM-DDTHH:MM:SS (plus .<ms> when built so) and parses 19–25 \
                characters on set (os_mgmt.c). mcumgr-toolkit writes zero or three fractional digits and reads an \
                optional time zone (serialize_datetime_for_zephyr, mcumgr-toolkit/src/commands/os.rs). A set clock is \
                set back to what it read (reversible); an unset clock (rc OS_MGMT_ERR_RTC_NOT_SET) is set to UTC only \
                with --allow-writes.
                """, body: datetime),
        ConformanceCheck(
            "os.bootloader-info", .os, required: false,
            expects: "bootloader info names the bootloader and, for MCUboot, its mode (-1 to 9)",
            rationale: """
                Upgrade planners choose test-and-confirm or plain upload by the MCUboot mode (query "mode"): \
                mcumgr-toolkit reads it in os_bootloader_info (client.rs), our FirmwareUpgradeManager plans by it.
                """, body: bootloaderInfo),
        ConformanceCheck(
            "os.reset", .os, access: .reset,
            expects: "reset is answered before the device drops, and the device answers again within --boot-timeout",
            rationale: """
                The reset answer is sent before the reboot (CONFIG_MCUMGR_GRP_OS_RESET_MS later, os_mgmt.c); clients \
                wait for it and then poll until the device answers (our upgrade planner after its reset). Not run when a \
                slot is pending or the running image is on test: a reset would swap or revert it.
                """, body: reset),
    ]

    private static func echoWrite(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        // Two bytes of room below the largest request: a device writing indefinite-length maps
        // answers one byte longer than the request.
        let largest = try await context.largestRequest() - 2
        var sizes = [1, 23, 24, 255, 256].map { SMPHeader.size + 3 + CBORHead.size($0) + $0 }.filter { $0 < largest }
        sizes.append(largest)
        var note = ""
        for size in sizes {
            guard let request = echoRequest(ofSize: size, fill: "e") else { continue }
            guard let answer = try await context.ask(request, accepts: { answersEcho(request, $0) }) else {
                return .fail("no answer to an echo of \(size) bytes")
            }
            if size == largest, answer.rc == SMPReturnCode.messageTooLarge.rawValue {
                // Read whole; the answer (with whatever the device adds) did not fit its buffer.
                note = " (the largest answered rc 7, MGMT_ERR_EMSGSIZE: its echo did not fit)"
                continue
            }
            guard answer.isSuccess else { return .fail("an echo of \(size) bytes was answered \(answer.summary)") }
        }
        return .pass("echoes of \(sizes.map(String.init).joined(separator: ", ")) bytes came back whole" + note)
    }

    private static func echoRead(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let answer = try await context.echo("echo as a read", operation: .read) else { return .fail("no answer to echo sent as a read") }
        guard answer.isSuccess else {
            return .fail("echo sent as a read was answered \(answer.summary): echo is answered as a read and as a write")
        }
        return .pass("echo sent as a read came back")
    }

    private static func params(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let answer = try await context.ask(ProbeRequest(.read, group: .os, command: 6)) else { return .fail("no answer to MCUmgr parameters") }
        if answer.rc == SMPReturnCode.notSupported.rawValue { return .unsupported("MCUmgr parameters answered rc 8 (MGMT_ERR_ENOTSUP)") }
        guard answer.isSuccess else { return .fail("MCUmgr parameters answered \(answer.summary)") }
        guard case .unsigned(let size)? = answer.value?["buf_size"], case .unsigned(let count)? = answer.value?["buf_count"] else {
            return .fail("MCUmgr parameters answered \(answer.summary): buf_size and buf_count must be unsigned integers")
        }
        guard size > UInt64(SMPHeader.size) + 16, count >= 1 else {
            return .fail("MCUmgr parameters answered buf_size \(size), buf_count \(count): no request fits")
        }
        _ = try await context.buffers()
        return .pass("buf_size \(size), buf_count \(count)")
    }

    private static func datetime(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let get = ProbeRequest(.read, group: .os, command: 4)
        guard let first = try await context.ask(get) else { return .fail("no answer to date-time get") }
        if first.rc == SMPReturnCode.notSupported.rawValue { return .unsupported("date-time answered rc 8 (MGMT_ERR_ENOTSUP)") }
        let value: String
        if first.isSuccess {
            guard let read = first.value?["datetime"]?.textValue, let seconds = CivilTime.seconds(read) else {
                return .fail("date-time answered \(first.summary), not YYYY-MM-DDTHH:MM:SS")
            }
            value = CivilTime.text(seconds)
        } else {
            // OS_MGMT_ERR_RTC_NOT_SET in v2, a translated rc in v1: the clock has nothing to read yet.
            guard context.options.allowsWrites else {
                return .skipped("date-time get answered \(first.summary) (the clock is not set?); setting it needs --allow-writes")
            }
            value = CivilTime.text(CivilTime.nowUTC())
        }
        let set = ProbeRequest(.write, group: .os, command: 4, value: .textMap(["datetime": .text(value)]))
        guard let answer = try await context.send(set) else { return .fail("no answer to date-time set \(value)") }
        guard answer.isSuccess else { return .fail("date-time set \(value) was answered \(answer.summary)") }
        guard let second = try await context.ask(get), second.isSuccess, let back = second.value?["datetime"]?.textValue else {
            return .fail("date-time get after set did not answer a date-time")
        }
        guard let seconds = CivilTime.seconds(back), let expected = CivilTime.seconds(value), abs(seconds - expected) <= 2 else {
            return .fail("date-time set to \(value) read back as \(back)")
        }
        return .pass("read \(value), set it, read back \(back)")
    }

    private static func bootloaderInfo(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let answer = try await context.ask(ProbeRequest(.read, group: .os, command: 8)) else { return .fail("no answer to bootloader info") }
        if answer.rc == SMPReturnCode.notSupported.rawValue { return .unsupported("bootloader info answered rc 8 (MGMT_ERR_ENOTSUP)") }
        guard answer.isSuccess, let name = answer.value?["bootloader"]?.textValue else {
            return .fail("bootloader info answered \(answer.summary), without a bootloader name")
        }
        guard name == "MCUboot" else { return .pass("bootloader \(name)") }
        let query = ProbeRequest(.read, group: .os, command: 8, value: .textMap(["query": .text("mode")]))
        guard let mode = try await context.ask(query) else { return .fail("no answer to bootloader info with query \"mode\"") }
        guard mode.isSuccess, let number = mode.value?["mode"]?.intValue, (-1...9).contains(number) else {
            return .fail("bootloader info with query \"mode\" answered \(mode.summary), not a mode from -1 to 9")
        }
        return .pass("MCUboot, mode \(number)")
    }

    private static func reset(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        if let table = try await context.initialImageTable(), let why = ImageSlotRow.resetWouldChange(table) {
            return .skipped("a reset would change the images: \(why)")
        }
        return try await resetAndReturn(context)
    }

    /// Sends reset and waits for the device to answer again; aborts the run when it does not.
    static func resetAndReturn(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let answer = try await context.send(ProbeRequest(.write, group: .os, command: 5)) else {
            return .fail("no answer to reset: the answer comes before the device drops")
        }
        guard answer.isSuccess else { return .fail("reset was answered \(answer.summary)") }
        let start = context.clock.now
        // Let the device go down first (it reboots CONFIG_MCUMGR_GRP_OS_RESET_MS after answering).
        try? await context.clock.sleep(for: .milliseconds(500))
        guard await context.waitUntilAnswering(within: context.options.bootTimeout) else {
            throw ConformanceAbort(reason: "the device did not answer within --boot-timeout (\(context.options.bootTimeout)) after a reset")
        }
        let elapsed = context.clock.now - start
        return .pass("reset was answered; the device answered again after \(Duration.seconds(Double(Int(elapsed.seconds * 10)) / 10))")
    }
}
