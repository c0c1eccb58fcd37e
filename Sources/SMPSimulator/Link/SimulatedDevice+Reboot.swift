import SMP
extension SimulatedDevice {
    /// Carries out what a request asked of the link layer.
    func apply(_ effect: DeviceEffect, transport: Int) async {
        switch effect {
        case .resetRequested:
            let delay = configuration.resetDelay
            let gen = generation
            clock.task {
                try? await clock.sleep(for: delay)
                await self.reboot(reason: "reset command", ifGeneration: gen)
            }
        case .reboot(let delay, let reason):
            let gen = generation
            clock.task {
                try? await clock.sleep(for: delay)
                await self.reboot(reason: reason, ifGeneration: gen)
            }
        case .crash:
            logger.notice("fault: device reset during upload")
            await reboot(reason: "fault at upload offset", ifGeneration: generation)
        case .disconnect:
            let delay = faults.reconnectDelay
            let hooks = transports[transport]
            logger.notice("fault: link \(transport) (\(hooks?.name ?? "unregistered")) dropped during upload for \(delay)")
            linkDownUntil[transport] = clock.now + delay
            await hooks?.disconnect(delay)
        }
    }

    /// Reboots: everything queued is lost, MCUboot swaps, and the device is silent while it boots.
    func reboot(reason: String, ifGeneration gen: Int) async {
        guard gen == generation else { return }
        generation += 1
        heldRequest = nil
        heldResponse = nil
        let actions = core.boot(reason: reason)
        // A device that stays down is offline for a hundred years.
        offlineUntil = clock.now + (faults.staysDownAfterReset ? .seconds(100 * 365 * 86_400) : configuration.bootDuration)
        logger.notice("reboot (\(reason)), boot \(core.bootCount): \(actions.enumerated().map { "image \($0.offset) \($0.element)" }.joined(separator: ", "))")
        resumeBootWaiters()
        for hooks in transports.values where hooks.disconnectsOnReset {
            await hooks.disconnect(configuration.bootDuration)
        }
    }

    /// Why the device last reset: `power on`, `reset command`, `crash (div0)`, `power cycle`, ….
    public var lastResetReason: String { core.resetReason }

    /// Resets the device now, as a power cycle would (no response to anything in flight).
    public func powerCycle() async {
        await reboot(reason: "power cycle", ifGeneration: generation)
    }

    /// Waits until the device is booted and answering.
    public func waitUntilOnline() async {
        while let until = offlineUntil, clock.now < until {
            try? await clock.sleep(until: until)
        }
    }

    /// Waits until the device has booted `count` times (``bootCount``, 1 after start): returns when
    /// the reboot that makes it so happens, at once if it already has, or when the task is cancelled.
    /// The device may still be booting then; ``waitUntilOnline()`` waits for that.
    public func waitForBoot(_ count: Int) async {
        if core.bootCount >= count { return }
        nextBootWaiter += 1
        let id = nextBootWaiter
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled {
                    continuation.resume()
                } else {
                    bootWaiters.append(BootWaiter(id: id, count: count, continuation: continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelBootWaiter(id) }
        }
    }

    private func resumeBootWaiters() {
        let booted = core.bootCount
        let ready = bootWaiters.filter { $0.count <= booted }
        bootWaiters.removeAll { $0.count <= booted }
        for waiter in ready { waiter.continuation.resume() }
    }

    private func cancelBootWaiter(_ id: Int) {
        guard let index = bootWaiters.firstIndex(where: { $0.id == id }) else { return }
        bootWaiters.remove(at: index).continuation.resume()
    }
}

/// A task waiting in ``SimulatedDevice/waitForBoot(_:)``.
struct BootWaiter {
    let id: Int
    let count: Int
    let continuation: CheckedContinuation<Void, Never>
}
