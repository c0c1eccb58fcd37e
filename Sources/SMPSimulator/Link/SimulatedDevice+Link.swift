import SMP
import CBOR

extension SimulatedDevice {
    /// Hands the device one received packet (a datagram, or a reassembled transport unit); the
    /// responses go to `reply`. Returns at once: the link model delays, drops and queues as configured.
    public func receive(_ packet: [UInt8], from transport: TransportID, reply: @escaping ResponseSink) {
        arrivals += 1
        let id = transport.rawValue
        if isOffline {
            note(packet, transport: id, .dropped("rebooting"))
            return
        }
        if let until = linkDownUntil[id], clock.now < until {
            note(packet, transport: id, .dropped("link down"))
            return
        }
        if wedges(on: packet) {
            note(packet, transport: id, .dropped("wedged (quirk \(SimulatorQuirk.wedgesOnBadLength))"))
            return
        }
        if faults.hasPacketFaults && faults.directions.contains(.requests) {
            if random.chance(faults.dropPercent) {
                note(packet, transport: id, .dropped("fault: drop"))
                return
            }
            if random.chance(faults.delayPercent) {
                let delay = faults.delay
                let gen = generation
                clock.task {
                    try? await clock.sleep(for: delay)
                    self.arrive(packet, transport: id, reply: reply, generation: gen)
                }
                return
            }
            if random.chance(faults.duplicatePercent) {
                arrive(packet, transport: id, reply: reply, generation: generation)
            }
            if random.chance(faults.reorderPercent), heldRequest == nil {
                hold(packet, transport: id, reply: reply, response: false)
                return
            }
        }
        arrive(packet, transport: id, reply: reply, generation: generation)
        releaseHeldRequest()
    }

    /// Whether a quirky device ignores this packet: it is wedged, or the packet's length field
    /// claims more bytes than arrived (and not because a buffer cut it) and wedges it now.
    private func wedges(on packet: [UInt8]) -> Bool {
        guard configuration.quirks.contains(.wedgesOnBadLength) else { return false }
        if let until = wedgedUntil, clock.now < until { return true }
        guard let header = RequestHeader(packet, at: 0), packet.count <= configuration.bufferSize,
            header.length > packet.count - RequestHeader.size
        else { return false }
        wedgedUntil = clock.now + configuration.wedgeDuration
        logger.notice("quirk \(SimulatorQuirk.wedgesOnBadLength): silent for \(configuration.wedgeDuration)")
        return true
    }

    /// Whether the device is rebooting.
    var isOffline: Bool {
        guard let until = offlineUntil else { return false }
        if clock.now >= until {
            offlineUntil = nil
            return false
        }
        return true
    }

    /// The packet crossed the wire: wait for the bandwidth, then take a buffer.
    func arrive(_ packet: [UInt8], transport: Int, reply: @escaping ResponseSink, generation gen: Int) {
        guard let done = reserveWire(&ingressWireFree, bytes: packet.count) else {
            admit(packet, transport: transport, reply: reply, generation: gen)
            return
        }
        clock.task {
            try? await clock.sleepExactly(until: done)
            self.admit(packet, transport: transport, reply: reply, generation: gen)
        }
    }

    /// Takes one of `buf_count` buffers and queues the packet for the (single) SMP work queue.
    /// A packet longer than `buf_size` is cut to `buf_size`, as the net_buf holding it would be.
    func admit(_ received: [UInt8], transport: Int, reply: @escaping ResponseSink, generation gen: Int) {
        let packet = received.count > configuration.bufferSize ? Array(received.prefix(configuration.bufferSize)) : received
        guard gen == generation, !isOffline else {
            note(packet, transport: transport, .dropped("rebooting"))
            return
        }
        guard inFlight < configuration.bufferCount else {
            switch link.bufferOverflow {
            case .drop:
                note(packet, transport: transport, .dropped("no free buffer"))
            case .answerNoMemory where configuration.quirks.contains(.noRefusalWhenFull):
                note(packet, transport: transport, .dropped("no free buffer (quirk \(SimulatorQuirk.noRefusalWhenFull))"))
            case .answerNoMemory:
                note(packet, transport: transport, .status(MgmtError.noMemory))
                if let header = RequestHeader(packet, at: 0) {
                    let response = core.statusResponse(MgmtError.noMemory, for: header)
                    clock.task { await reply(response) }
                }
            }
            return
        }
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        let previous = processingTail
        processingTail = clock.task {
            await previous?.value
            await self.process(packet, transport: transport, reply: reply, generation: gen)
        }
    }

    /// Runs the device on one packet, then answers when the latency has passed since the device
    /// took it up (plus the modelled flash time); the buffer is released when the last response is
    /// out. The simulator's own computing time is hidden in the latency, so a link answers as its
    /// parameters say however fast the host is (in virtual time the two are the same).
    func process(_ packet: [UInt8], transport: Int, reply: @escaping ResponseSink, generation gen: Int) async {
        guard gen == generation, !isOffline else {
            inFlight -= 1
            note(packet, transport: transport, .dropped("rebooting"))
            return
        }
        let takenUp = clock.now
        let result = core.process(packet, transport: transport, startedAt: origin)
        for record in result.records { keep(record) }
        let flashTime = link.flashWriteTimePerByte * result.flashBytesWritten
        if flashTime > .zero { try? await clock.sleepExactly(for: flashTime) }
        for effect in result.effects { await apply(effect, transport: transport) }
        let responses = result.responses
        if link.latency == .zero && link.bandwidth == nil && !faults.hasPacketFaults {
            for response in responses where gen == generation { await reply(response) }
            release()
            return
        }
        let latency = link.latency
        let due = takenUp + flashTime + latency
        clock.task {
            if latency > .zero { try? await clock.sleepExactly(until: due) }
            for response in responses { await self.transmit(response, transport: transport, reply: reply, generation: gen) }
            self.release()
        }
    }

    func release() {
        inFlight -= 1
    }

    /// Sends one response over the wire, through the response faults.
    func transmit(_ response: [UInt8], transport: Int, reply: @escaping ResponseSink, generation gen: Int) async {
        guard gen == generation else { return }
        if faults.hasPacketFaults && faults.directions.contains(.responses) {
            if random.chance(faults.dropPercent) {
                logger.debug("fault: response dropped (\(response.count) bytes)")
                return
            }
            if random.chance(faults.delayPercent) {
                let delay = faults.delay
                clock.task {
                    try? await clock.sleep(for: delay)
                    await self.onWire(response, reply: reply, generation: gen)
                }
                return
            }
            if random.chance(faults.duplicatePercent) { await onWire(response, reply: reply, generation: gen) }
            if random.chance(faults.reorderPercent), heldResponse == nil {
                hold(response, transport: transport, reply: reply, response: true)
                return
            }
        }
        await onWire(response, reply: reply, generation: gen)
        await releaseHeldResponse()
    }

    /// Waits for the outgoing wire (bandwidth) and delivers.
    func onWire(_ response: [UInt8], reply: ResponseSink, generation gen: Int) async {
        if let done = reserveWire(&egressWireFree, bytes: response.count) {
            try? await clock.sleepExactly(until: done)
        }
        guard gen == generation else { return }
        await reply(response)
    }

    /// Books `bytes` on one direction of a bandwidth-limited wire, free from `wireFree` on; returns
    /// when they are through, or nil when the bandwidth is unlimited.
    private func reserveWire(_ wireFree: inout SMPInstant, bytes: Int) -> SMPInstant? {
        guard let bandwidth = link.bandwidth, bandwidth > 0 else { return nil }
        let done = max(clock.now, wireFree) + .nanoseconds(Int64(bytes) * 1_000_000_000 / Int64(bandwidth))
        wireFree = done
        return done
    }

    /// Holds a packet back until the next one passes, or at most `faults.delay`.
    func hold(_ packet: [UInt8], transport: Int, reply: @escaping ResponseSink, response: Bool) {
        let serial = arrivals
        let held = HeldPacket(bytes: packet, transport: transport, reply: reply, generation: generation, serial: serial)
        if response { heldResponse = held } else { heldRequest = held }
        let delay = faults.delay
        clock.task {
            try? await clock.sleep(for: delay)
            if response { await self.releaseHeldResponse(serial: serial) } else { self.releaseHeldRequest(serial: serial) }
        }
    }

    /// Lets the held request (only the one held as `serial`, when given) go on to the device.
    func releaseHeldRequest(serial: Int? = nil) {
        guard let held = heldRequest, serial.map({ $0 == held.serial }) ?? true else { return }
        heldRequest = nil
        arrive(held.bytes, transport: held.transport, reply: held.reply, generation: held.generation)
    }

    /// Sends the held response (only the one held as `serial`, when given).
    func releaseHeldResponse(serial: Int? = nil) async {
        guard let held = heldResponse, serial.map({ $0 == held.serial }) ?? true else { return }
        heldResponse = nil
        await onWire(held.bytes, reply: held.reply, generation: held.generation)
    }

    /// Logs and keeps a request record.
    func keep(_ record: RequestRecord) {
        if records.count >= Self.recordLimit { records.removeFirst(records.count / 2) }
        records.append(record)
        logger.debug("\(record)")
    }

    /// Records a packet the link did not hand to the device.
    func note(_ packet: [UInt8], transport: Int, _ outcome: RequestRecord.Outcome) {
        keep(
            RequestRecord(
                time: clock.now - origin, transport: transport, header: RequestHeader(packet, at: 0),
                packetLength: packet.count, outcome: outcome))
    }
}
