import CBOR

/// Everything the session does about a device that refuses a request for lack of room
/// (`MGMT_ERR_ENOMEM`: no free buffer) or because it is busy (`MGMT_ERR_EBUSY`), in one place:
/// - the in-flight window narrows to the requests the device held, and widens again one at a time
///   as answers come (the interval doubling each time it runs short again);
/// - a request sent one at a time is asked again after a back-off, within its deadline;
/// - pipelines are held back for a back-off when the device is busy or holds nothing else (with
///   other requests still in it, their answers free its buffers and the narrowed window suffices);
///   the refused request's outcome goes to its pipeline, which decides what to send again.
/// Back-offs start at 25 ms and double with each refusal in a row, up to 1 s.
extension SMPClient {
    /// After narrowing, the window grows by one after this many answers in a row; the interval
    /// doubles each time the device runs short again, so the window settles at what it holds.
    static let initialWindowProbeInterval = 32

    /// The wait before asking again after `refusals` refusals in a row (at least 1).
    static func backOff(afterRefusals refusals: Int) -> Duration {
        min(.milliseconds(25 << min(max(refusals - 1, 0), 6)), .seconds(1))
    }

    /// The refusal in a decoded answer, if it is one: `noMemory` or `busy`.
    static func refusal(in response: CBORValue) -> SMPReturnCode? {
        guard let error = try? SMPDeviceError(response: response), error.isRefusalForLackOfRoom else { return nil }
        return error.status
    }

    /// Reads an answer for a refusal where the session must see one (a pipelined request, or any
    /// request while several may be in flight), keeping what it decoded in the packet so that
    /// its reader does not decode it again; acts on a refusal.
    func readForRefusal(_ packet: SMPPacket, answering entry: PendingRequest) -> SMPPacket {
        guard entry.isPipelined || configuration.maximumInFlight > 1 else { return packet }
        let read = packet.keepingDecodedPayload()
        let code = read.payload.flatMap(Self.refusal(in:))
        if let code {
            deviceRefused(entry, code: code)
        } else if entry.isPipelined {
            consecutiveRefusals = 0
        }
        return read.packet
    }

    /// The device refused `entry` (still in flight): it held the requests sent before it that
    /// are still unanswered, and the window narrows to them (at least 1, and at least one less
    /// than before). A refused request submitted before the window last narrowed was sent under
    /// the wider window and changes nothing, so a burst of refusals narrows the window once,
    /// whatever answers arrive between them. A refused pipelined request may hold the pipelines.
    private func deviceRefused(_ entry: PendingRequest, code: SMPReturnCode) {
        if entry.token > narrowedThroughToken {
            let held = pending.values.reduce(0) { $0 + ($1.token < entry.token ? 1 : 0) }
            narrow(to: max(1, min(window - 1, held)))
        }
        guard entry.isPipelined else { return }
        consecutiveRefusals += 1
        let othersInDevice = pending.values.contains { $0 !== entry }
        if code == .busy || !othersInDevice {
            holdPipelines(for: Self.backOff(afterRefusals: consecutiveRefusals))
        }
    }

    private func narrow(to narrowed: Int) {
        if narrowed < window {
            logger.info("the device has no room for more requests; in-flight window narrowed from \(window) to \(narrowed)")
            window = narrowed
        }
        narrowedThroughToken = lastToken
        answersSinceWindowChange = 0
        windowProbeInterval = min(windowProbeInterval * 2, 1 << 16)
    }

    /// An answer came: a narrowed window widens by one after ``windowProbeInterval`` of them.
    func countAnswerTowardsWidening() {
        guard window < configuration.maximumInFlight else { return }
        answersSinceWindowChange += 1
        if answersSinceWindowChange >= windowProbeInterval {
            window += 1
            answersSinceWindowChange = 0
            logger.debug("in-flight window widened to \(window)")
        }
    }

    /// Sends nothing from pipelines for `duration`, then asks them again.
    private func holdPipelines(for duration: Duration) {
        let until = clock.now + duration
        if let hold, hold.until >= until { return }
        hold?.task.cancel()
        logger.debug("the device is short of room; pipelines wait \(duration)")
        hold = (until, wake(at: until) { await $0.endHold() })
    }

    private func endHold() async {
        hold = nil
        pumpPipelines()
        await flushOutbox()
    }

    /// For a request sent one at a time: after a refusal in `response`, how long to wait before
    /// asking again (the `refusals`-th in a row), or `nil` when the answer is no refusal or the
    /// wait would pass `deadline`.
    func backOffBeforeAskingAgain(after response: CBORValue, refusals: Int, deadline: SMPInstant) -> Duration? {
        guard let code = Self.refusal(in: response) else { return nil }
        let wait = Self.backOff(afterRefusals: refusals)
        guard clock.now + wait < deadline else { return nil }
        logger.debug("the device is busy (\(code.name)); asking again in \(wait)")
        return wait
    }
}

extension SMPDeviceError {
    /// Whether the device refused for lack of room or because it was busy (`MGMT_ERR_ENOMEM`,
    /// `MGMT_ERR_EBUSY`): the same request may succeed later.
    public var isRefusalForLackOfRoom: Bool {
        status == .noMemory || status == .busy
    }
}
