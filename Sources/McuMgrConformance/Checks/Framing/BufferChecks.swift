import CBOR
import SMP

// The device's buffers: a request of exactly buf_size, one byte more, buf_count requests in
// flight, and one more.

extension ConformanceCheck {
    /// The buffer checks.
    static let buffers: [ConformanceCheck] = [
        ConformanceCheck(
            "framing.exact-buf-size", .framing,
            expects: "a request of exactly buf_size bytes (header included) is taken",
            rationale: """
                buf_size is one SMP buffer, header included, and bounds the largest request (smp_protocol.rst, MCUmgr \
                parameters). Clients size their largest requests to it: mcumgr-toolkit's use_auto_frame_size takes \
                min(buf_size, what the transport carries) (mcumgr-toolkit/src/client.rs), smpclient sizes upload chunks \
                from buf_size (SMPClient._initialize and _maximize_image_upload_write_packet, smpclient/__init__.py), our \
                upload engine fills frames to it. An answer of rc 7 (MGMT_ERR_EMSGSIZE) counts as taken: the request \
                was read, its echo did not fit (a device writing indefinite-length maps answers one byte longer).
                """, body: exactBufferSize),
        ConformanceCheck(
            "framing.over-buf-size", .framing,
            expects: "a request one byte over buf_size is refused with an rc or ignored, never half-read; the device answers after",
            rationale: """
                A packet longer than the buffer is cut by the transport's buffer and answered rc 9 (MGMT_ERR_ECORRUPT: \
                shorter than its length field, smp.c), or dropped. A device that takes it after all reports a buf_size \
                smaller than it handles; one that answers success to a cut packet corrupts data in silence (seen on \
                Zephyr 3.4 over UDP). mcumgr-toolkit warns that frames over MCUMGR_TRANSPORT_NETBUF_SIZE "might crash \
                the device" (set_frame_size, mcumgr-toolkit/src/client.rs).
                """, body: overBufferSize),
        ConformanceCheck(
            "framing.buffer-count", .framing,
            expects: "buf_count requests sent back to back are all answered",
            rationale: """
                buf_count is how many requests the device holds at once (MCUMGR_TRANSPORT_NETBUF_COUNT). Pipelining \
                clients keep several requests in flight: Apache's Go mcumgr widens its upload window to 5 \
                (IMAGE_UPLOAD_DEF_MAX_WS, nmxact/xact/image.go), Nordic's libraries send pipelineDepth chunks \
                (ImageManager.swift), our session derives its depth from buf_count.
                """, body: bufferCount),
        ConformanceCheck(
            "framing.buffer-overflow", .framing,
            expects: "one request more than buf_count is answered rc 2 (MGMT_ERR_ENOMEM) or queued, never dropped in silence",
            rationale: """
                A Zephyr 3.4 smp_svr over UDP answers the request it has no buffer for with rc 2. A client backs off and \
                resends (our session narrows its window; Go mcumgr narrows its window on errors in HandleError, \
                nmxact/xact/image.go); a request dropped in silence costs it a whole timeout, and a stop-and-wait client \
                after it (smpclient, mcumgr-toolkit) times out. The report says whether the device refused or queued.
                """, body: bufferOverflow),
    ]

    /// An echo request of exactly `size` bytes, with a minimal text head when one fits, else a
    /// longer head (the sizes a minimal head cannot give, such as 269).
    static func echoRequest(ofSize size: Int, fill: Character = "x") -> ProbeRequest? {
        let payload = size - SMPHeader.size
        for head in [1, 2, 3, 5] where payload - 3 - head >= 0 && CBORHead.size(payload - 3 - head) == head {
            return ProbeRequest.echo(String(repeating: fill, count: payload - 3 - head))
        }
        let count = payload - 3 - 3
        guard count >= 0, count < 0x10000 else { return nil }
        let text: [UInt8] = Array(String(repeating: fill, count: count).utf8)
        return ProbeRequest(.write, group: 0, command: 0, payload: [0xa1, 0x61, 0x64, 0x79, UInt8(count >> 8), UInt8(count & 0xff)] + text)
    }

    private static func exactBufferSize(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let buffers = try await context.buffers() else { return .skipped("the device does not report buf_size (MCUmgr parameters)") }
        let carried = await context.transportLimit()
        guard carried >= buffers.size else {
            return .skipped("the transport carries at most \(carried) bytes, less than buf_size \(buffers.size): raise --mtu where the link allows")
        }
        guard let request = echoRequest(ofSize: buffers.size) else { return .skipped("buf_size \(buffers.size) is too small for an echo") }
        guard let answer = try await context.ask(request, accepts: { answersEcho(request, $0) }) else {
            return .fail("no answer to a request of exactly buf_size (\(buffers.size) bytes)")
        }
        if answer.rc == SMPReturnCode.messageTooLarge.rawValue {
            return .pass("a request of \(buffers.size) bytes was read; its echo did not fit (rc 7, MGMT_ERR_EMSGSIZE)")
        }
        guard answer.isSuccess else { return .fail("a request of exactly buf_size (\(buffers.size) bytes) was refused: \(answer.summary)") }
        return .pass("a request of exactly buf_size (\(buffers.size) bytes) was echoed whole")
    }

    private static func overBufferSize(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let buffers = try await context.buffers() else { return .skipped("the device does not report buf_size (MCUmgr parameters)") }
        let carried = await context.transportLimit()
        guard carried > buffers.size else {
            return .skipped("the transport carries at most \(carried) bytes, not buf_size + 1 (\(buffers.size + 1)): raise --mtu where the link allows")
        }
        guard let request = echoRequest(ofSize: buffers.size + 1, fill: "o") else { return .skipped("buf_size \(buffers.size) is too small for an echo") }
        let answer = try await context.send(request)
        let after = try await context.echo("after one byte too many", resends: false, onlyEcho: true)
        guard after?.isSuccess == true else {
            return .fail("after a request one byte over buf_size the device did not answer an echo within \(context.options.timeout)")
        }
        guard let answer else { return .pass("a request of buf_size + 1 (\(buffers.size + 1) bytes) was ignored; the device answered after") }
        if answer.isSuccess, !answersEcho(request, answer) {
            return .fail("a request one byte over buf_size was cut and answered with success (\(answer.summary)): data corrupted in silence")
        }
        if answer.isSuccess || answer.rc == SMPReturnCode.messageTooLarge.rawValue {
            return .fail("a request one byte over buf_size (\(buffers.size + 1) bytes) was taken: the device handles more than the buf_size it reports")
        }
        return .pass("a request of buf_size + 1 (\(buffers.size + 1) bytes) was refused with \(answer.summary); the device answered after")
    }

    /// The echo requests of a window: one per slot, each with its own text.
    private static func window(_ count: Int, label: String) -> [ProbeRequest] {
        (0..<count).map { ProbeRequest.echo("\(label) \($0)") }
    }

    /// Whether `answer` is the echo of `request` (the same text) or a refusal.
    static func answersEcho(_ request: ProbeRequest, _ answer: ProbeAnswer) -> Bool {
        guard answer.group == request.group, answer.command == request.command else { return false }
        if let echoed = answer.value?["r"]?.textValue { return echoed == request.echoedText }
        return answer.isRefusal
    }

    /// The most requests a window check sends.
    static let windowLimit = 32

    private static func bufferCount(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let buffers = try await context.buffers() else { return .skipped("the device does not report buf_count (MCUmgr parameters)") }
        let count = min(buffers.count, windowLimit)
        let answers = try await context.pipeline(window(count, label: "window"), answers: answersEcho).answers
        let missing = answers.filter { $0 == nil }.count
        let refused = answers.compactMap { $0 }.filter(\.isRefusal)
        if missing > 0 { return .fail("\(missing) of \(count) requests in flight (buf_count \(buffers.count)) got no answer") }
        if let first = refused.first {
            return .fail("\(refused.count) of \(count) requests in flight (buf_count \(buffers.count)) were refused (\(first.summary))")
        }
        return .pass("\(count) requests in flight (buf_count \(buffers.count)) were all answered")
    }

    private static func bufferOverflow(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let buffers = try await context.buffers() else { return .skipped("the device does not report buf_count (MCUmgr parameters)") }
        guard buffers.count < windowLimit else { return .skipped("buf_count \(buffers.count) is more than this check sends (\(windowLimit))") }
        let count = buffers.count + 1
        let answers = try await context.pipeline(window(count, label: "overflow"), answers: answersEcho).answers
        let missing = answers.filter { $0 == nil }.count
        let refusals = answers.compactMap { $0 }.filter(\.isRefusal)
        // In either form: framing.unknown-group judges where statuses go.
        let noMemory = refusals.filter { [2, 10].contains($0.rc ?? $0.groupError?.rc ?? 0) }
        if missing > 0 {
            return .fail("\(missing) of \(count) requests (buf_count \(buffers.count) + 1) got no answer: a request beyond buf_count was dropped in silence instead of answered rc 2 (MGMT_ERR_ENOMEM)")
        }
        if let other = refusals.first(where: { ![2, 10].contains($0.rc ?? $0.groupError?.rc ?? 0) }) {
            return .fail("a request beyond buf_count was refused with \(other.summary), not rc 2 (MGMT_ERR_ENOMEM) or rc 10 (MGMT_ERR_EBUSY)")
        }
        if !noMemory.isEmpty {
            return .pass("\(noMemory.count) of \(count) requests were refused with \(noMemory[0].summary): the device refuses what it has no buffer for")
        }
        return .pass("all \(count) requests were answered: the device queued the one beyond buf_count (or finished one before the last arrived)")
    }
}
