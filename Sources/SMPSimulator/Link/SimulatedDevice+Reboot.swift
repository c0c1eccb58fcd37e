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
        let actions = core.boot()
        // A device that stays down is offline for a hundred years.
        offlineUntil = clock.now + (faults.staysDownAfterReset ? .seconds(100 * 365 * 86_400) : configuration.bootDuration)
        logger.notice("reboot (\(reason)), boot \(core.bootCount): \(actions.enumerated().map { "image \($0.offset) \($0.element)" }.joined(separator: ", "))")
        for hooks in transports.values where hooks.disconnectsOnReset {
            await hooks.disconnect(configuration.bootDuration)
        }
    }

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
}
