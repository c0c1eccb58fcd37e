import SMP

/// Paces one direction of a ``BLELinkModel`` link on an `SMPClock`: each ATT PDU waits for the
/// connection event and the packet slots that carry it, so throughput comes from time.
///
/// Packets chain within a connection event while data is queued; a PDU that becomes available
/// only after the event has run dry (the peer answered in between) waits for the next event, as
/// on a real link. Events are anchored at the pacer's creation.
actor BLELinkPacer {
    private let model: BLELinkModel
    private let clock: SMPClock
    private let origin: SMPInstant
    private var eventStart: SMPInstant
    private var used = 0

    init(model: BLELinkModel, clock: SMPClock) {
        self.model = model
        self.clock = clock
        self.origin = clock.now
        self.eventStart = origin
    }

    /// Books the packets of an ATT PDU of `size` bytes that was ready at `available`, and sleeps
    /// until its last packet is through.
    func transmit(attPDUSize size: Int, availableAt available: SMPInstant) async {
        let finish = book(packets: model.linkLayerPackets(forATTPDU: size), availableAt: available)
        try? await clock.sleepExactly(until: finish)
    }

    /// Books `packets` and returns when the last one ends.
    func book(packets: Int, availableAt available: SMPInstant) -> SMPInstant {
        let interval = model.connectionInterval
        let perEvent = model.packetsPerEvent
        let slotTime = model.packetTime
        let nextSlot = eventStart + slotTime * used
        // Join the running event only while it still has queued data (or at its anchor).
        let joins = used < perEvent && (used == 0 ? available <= eventStart : available < nextSlot)
        if !joins {
            var anchor = used >= perEvent ? eventStart + interval : eventStart
            if anchor < available {
                let behind = available - anchor
                var steps = Int(behind / interval)
                if anchor + interval * steps < available { steps += 1 }
                anchor = anchor + interval * steps
            } else if anchor == eventStart && used > 0 {
                anchor = eventStart + interval
            }
            eventStart = anchor
            used = 0
        }
        var remaining = packets
        while remaining > 0 {
            if used == perEvent {
                eventStart = eventStart + interval
                used = 0
            }
            let take = min(remaining, perEvent - used)
            used += take
            remaining -= take
        }
        return eventStart + slotTime * used
    }
}
