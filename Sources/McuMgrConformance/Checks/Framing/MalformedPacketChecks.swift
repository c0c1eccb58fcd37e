import CBOR
import SMP

// Packets whose framing lies: shorter than a header, a length field claiming more bytes than
// arrived, a length field claiming fewer. Each is answered or ignored; the device must answer
// the echo that follows within one timeout.

extension ConformanceCheck {
    /// The malformed-packet checks.
    static let malformedPackets: [ConformanceCheck] = [
        ConformanceCheck(
            "framing.truncated-header", .framing,
            expects: "a packet shorter than the 8-byte header is ignored, and the next request answered",
            rationale: """
                Fewer than 8 bytes carry no header and are dropped (smp.c). A client that times out on a request resends \
                it; a device that hangs on a short packet (a link that lost the rest) loses every later request.
                """, body: truncatedHeader),
        ConformanceCheck(
            "framing.length-too-long", .framing,
            expects: "a packet whose length field claims more bytes than arrived is answered rc 9 or ignored, and the device answers after",
            rationale: """
                A buffer shorter than 8 + the length field is answered rc 9, MGMT_ERR_ECORRUPT (smp.c). The device must \
                not wait for the bytes, read past the packet or stop answering: the next echo is answered within one \
                timeout. Skipped over links that find a packet's end by this length (BLE, raw serial): there the \
                missing bytes are the next request's.
                """, body: lengthTooLong),
        ConformanceCheck(
            "framing.length-too-short", .framing,
            expects: "a packet whose length field claims fewer bytes than arrived is answered or ignored, and the device answers after",
            rationale: """
                The payload is the length field's bytes; Zephyr reads what follows as another request (concatenated \
                requests, smp.h) and stops at the first error. Whatever it answers, the next echo is answered. Skipped \
                over links that find a packet's end by this length (BLE, raw serial).
                """, body: lengthTooShort),
    ]

    private static func truncatedHeader(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        try await context.sendRaw([0x0a, 0x00, 0x00, 0x09, 0x00])
        return try await answersAfterward(context, what: "a 5-byte packet", junk: nil)
    }

    private static func lengthTooLong(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        if context.options.linkDelimitsByLength { return .skipped("the link finds a packet's end by its length field") }
        var junk = ProbeRequest.echo("length lies")
        junk.declaredLength = junk.payload.count + 32
        return try await answersAfterward(context, what: "a packet whose length field claims 32 bytes more than arrived", junk: junk)
    }

    private static func lengthTooShort(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        if context.options.linkDelimitsByLength { return .skipped("the link finds a packet's end by its length field") }
        var junk = ProbeRequest.echo("the length field says five")
        junk.declaredLength = 5
        return try await answersAfterward(context, what: "a packet whose length field claims fewer bytes than arrived", junk: junk)
    }

    /// Sends `junk` (when given) and an echo right after, and judges: the echo must be answered
    /// within one timeout; the junk may be answered with an error or not at all, never with success.
    private static func answersAfterward(_ context: ConformanceContext, what: String, junk: ProbeRequest?) async throws(ConformanceAbort) -> ConformanceOutcome {
        await context.probe.drain()
        let junkSent = junk != nil
        if var junk {
            junk.sequence = await context.probe.allocateSequence()
            try await context.sendRaw(junk.bytes)
        }
        let text = "after a malformed packet"
        var echo = ProbeRequest.echo(text)
        echo.sequence = await context.probe.allocateSequence()
        try await context.sendRaw(echo.bytes)
        let deadline = context.clock.now + context.options.timeout
        var junkAnswer: ProbeAnswer?
        while let answer = await context.probe.next(until: deadline) {
            guard answer.isResponse, answer.group == 0, answer.command == 0 else { continue }
            if answer.value?["r"]?.textValue == text {
                return judge(junkSent ? junkAnswer : nil, what: what)
            }
            junkAnswer = junkAnswer ?? answer
        }
        await context.probe.markUnanswered(1)
        return .fail("after \(what) the device did not answer the next echo within \(context.options.timeout): it wedged")
    }

    private static func judge(_ junkAnswer: ProbeAnswer?, what: String) -> ConformanceOutcome {
        guard let junkAnswer else { return .pass("\(what) was ignored; the next echo was answered") }
        if junkAnswer.isSuccess { return .fail("\(what) was answered with success (\(junkAnswer.summary)): the device read bytes that were not sent") }
        return .pass("\(what) was answered \(junkAnswer.summary); the next echo was answered")
    }
}
