extension SimulatedDevice {
    /// Hands the device one received buffer and returns its answers at once, without the link
    /// model (no latency, buffers, bandwidth or packet faults): the SMP server alone (Zephyr's
    /// `smp.c` and the groups), for bulk tests and fuzzing. A reset it is asked for, or an upload
    /// fault, reboots the device at once; a disconnect fault is ignored (there is no link).
    public func handle(_ packet: [UInt8], from transport: TransportID? = nil) async -> [[UInt8]] {
        arrivals += 1
        let result = core.process(packet, transport: transport?.rawValue ?? 0, startedAt: origin)
        for record in result.records { keep(record) }
        for effect in result.effects where effect != .disconnect {
            await reboot(reason: effect == .crash ? "fault at upload offset" : "reset command", ifGeneration: generation)
            offlineUntil = nil
        }
        return result.responses
    }
}
