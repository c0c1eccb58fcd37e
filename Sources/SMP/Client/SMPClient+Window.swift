extension SMPClient {
    /// After narrowing, the window grows by one after this many answers in a row; the interval
    /// doubles each time the device runs short again, so the window settles at what it holds.
    static let initialWindowProbeInterval = 32

    /// The device refused a request for lack of a buffer (`MGMT_ERR_ENOMEM`) or because it was
    /// busy: the window narrows to the requests it holds now (at least 1, and at least one less
    /// than before), and widens again one at a time as answers come.
    ///
    /// With `refused`, the request the device refused, the device is taken to hold the requests
    /// sent before it that are still unanswered, and a refusal of a request submitted before the
    /// window last narrowed changes nothing: it was sent under the wider window, so a burst of
    /// refusals narrows the window once instead of once per refused request.
    public func deviceHadNoRoom(refused: SMPSentRequest? = nil) {
        if let refused, refused.token <= narrowedThroughToken { return }
        let held = refused.map { refused in pending.values.reduce(0) { $0 + ($1.token < refused.token ? 1 : 0) } } ?? inFlight
        let narrowed = max(1, min(window - 1, held))
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
