extension SMPClient {
    /// Takes a window slot, waiting for one when the window is full. Waiting requests are served
    /// in order and before pipelines: a freed slot is handed to the first of them directly.
    func acquireSlot() async throws(SMPError) {
        if inFlight < window && slotWaiters.isEmpty {
            inFlight += 1
            return
        }
        let token = nextToken()
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                slotWaiters.append((token: token, continuation: continuation))
            }
        } onCancel: {
            clock.task { await self.dropSlotWaiter(token) }
        }
        guard granted else { throw isClosed ? .closed : .cancelled }
        if Task.isCancelled {
            releaseSlot(answered: false)
            throw .cancelled
        }
    }

    /// Frees a slot; an answered request counts towards widening a narrowed window.
    func releaseSlot(answered: Bool) {
        inFlight -= 1
        if answered { countAnswerTowardsWidening() }
        wakeSlotWaiters()
    }

    /// Hands free slots to the requests waiting for one, first come first served.
    func wakeSlotWaiters() {
        while inFlight < window, !slotWaiters.isEmpty {
            inFlight += 1
            slotWaiters.removeFirst().continuation.resume(returning: true)
        }
    }

    /// Lets every waiting request go without a slot (the session closed).
    func releaseSlotWaiters() {
        for waiter in slotWaiters { waiter.continuation.resume(returning: false) }
        slotWaiters.removeAll()
    }

    private func dropSlotWaiter(_ token: UInt64) {
        if let index = slotWaiters.firstIndex(where: { $0.token == token }) {
            slotWaiters.remove(at: index).continuation.resume(returning: false)
        }
    }
}
