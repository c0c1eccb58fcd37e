import CBOR

extension SMPClient {
    /// After narrowing, the window grows by one after this many answers in a row; the interval
    /// doubles each time the device runs short again, so the window settles at what it holds.
    static let initialWindowProbeInterval = 32

    /// An answer refused the request `token` for lack of room (`MGMT_ERR_ENOMEM`, busy): the
    /// device held the requests sent before it that are still unanswered, and the window narrows
    /// to them (at least 1, and at least one less than before), to widen again one at a time as
    /// answers come. A refused request submitted before the window last narrowed
    /// was sent under the wider window and changes nothing, so a burst of refusals narrows the
    /// window once, whatever answers arrive between them.
    func deviceRefused(_ token: UInt64) {
        guard token > narrowedThroughToken else { return }
        let held = pending.values.reduce(0) { $0 + ($1.token < token ? 1 : 0) }
        narrow(to: max(1, min(window - 1, held)))
    }

    /// Whether a decoded answer refuses its request for lack of a buffer or because the device is busy.
    func refusesForLackOfRoom(_ response: CBORValue) -> Bool {
        guard case .status(let code, _)? = try? SMPDeviceError(response: response) else { return false }
        return code == .noMemory || code == .busy
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

    func acquireSlot() async throws(SMPError) {
        while inFlight >= window {
            let token = nextToken()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    slotWaiters.append((token: token, continuation: continuation))
                }
            } onCancel: {
                clock.task { await self.dropSlotWaiter(token) }
            }
            if Task.isCancelled {
                // This task may have been woken for a free slot it will not take: pass it on.
                wakeSlotWaiters()
                throw .cancelled
            }
            if isClosed { throw .closed }
        }
        inFlight += 1
    }

    /// Frees a slot; an answered request counts towards widening a narrowed window.
    func releaseSlot(answered: Bool) {
        inFlight -= 1
        if answered && window < configuration.maximumInFlight {
            answersSinceWindowChange += 1
            if answersSinceWindowChange >= windowProbeInterval {
                window += 1
                answersSinceWindowChange = 0
                logger.debug("in-flight window widened to \(window)")
            }
        }
        wakeSlotWaiters()
    }

    func wakeSlotWaiters() {
        var free = window - inFlight
        while free > 0, !slotWaiters.isEmpty {
            slotWaiters.removeFirst().continuation.resume()
            free -= 1
        }
    }

    private func dropSlotWaiter(_ token: UInt64) {
        if let index = slotWaiters.firstIndex(where: { $0.token == token }) {
            slotWaiters.remove(at: index).continuation.resume()
        }
    }
}
