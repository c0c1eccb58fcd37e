extension SMPClient {
    /// Reads the device's SMP buffers once (OS command 6) and bounds every later request by them;
    /// `reassemblyBufferSize`, when given, overrides the device's `buf_size`.
    ///
    /// A device that does not answer the command with its parameters (an error answer) leaves
    /// them unknown: requests are then bounded by the transport alone. Values no device can have
    /// (a `buf_size` of 0 or 10) throw `SMPError.invalidResponse`.
    @discardableResult
    public func negotiate(reassemblyBufferSize: Int? = nil) async throws(SMPError) -> SMPDeviceBuffers? {
        if let reassemblyBufferSize {
            guard reassemblyBufferSize >= SMPDeviceBuffers.minimumBufferSize else {
                throw .invalidRequest("a reassembly buffer of \(reassemblyBufferSize) bytes is too small for any request (at least \(SMPDeviceBuffers.minimumBufferSize))")
            }
            self.reassemblyBufferSize = reassemblyBufferSize
        }
        do throws(SMPError) {
            deviceBuffers = try await send(SMPDeviceBuffersRead()).validated()
        } catch .device(let error) {
            logger.debug("the device does not report its SMP buffers: \(error)")
            deviceBuffers = nil
        } catch {
            throw error
        }
        await transport.setDeviceBufferSize(self.reassemblyBufferSize ?? deviceBuffers?.bufferSize)
        hasNegotiated = true
        return deviceBuffers
    }

    /// The device's SMP buffers, read with ``negotiate(reassemblyBufferSize:)`` unless this
    /// session already did (whatever the answer was).
    public func negotiateIfNeeded() async throws(SMPError) -> SMPDeviceBuffers? {
        if hasNegotiated { return deviceBuffers }
        return try await negotiate()
    }

    /// The largest request packet this session sends now: the transport's limit (read again each
    /// time: a link may come back with another MTU), and the device's buffer once known.
    public func packetLimit() async -> Int {
        if let boundTransport { return packetLimit(transportLimit: boundTransport.currentMaximumPacketSize) }
        return packetLimit(transportLimit: await transport.maximumPacketSize)
    }

    /// The largest request packet for a transport limit of `transportLimit`: bounded by the
    /// device's buffer once known.
    func packetLimit(transportLimit: Int) -> Int {
        guard let device = reassemblyBufferSize ?? deviceBuffers?.bufferSize else { return transportLimit }
        return min(transportLimit, device)
    }

    /// The link's own unit (datagram, ATT MTU − 3, serial frame payload), for reports.
    public func linkUnit() async -> Int {
        await transport.linkUnit
    }

    /// Brings a dropped link back: `connect()` on the transport with back-off until the
    /// configuration's reconnect timeout passes. Concurrent callers share one attempt.
    public func reconnect() async throws(SMPError) {
        if isClosed { throw .closed }
        if let reconnection {
            try await reconnection.value.get()
            return
        }
        let policy = configuration.reconnect
        let task = clock.task { await self.connectWithBackOff(policy) }
        reconnection = task
        let result = await task.value
        reconnection = nil
        try result.get()
    }

    private nonisolated func connectWithBackOff(_ policy: SMPReconnectPolicy) async -> Result<Void, SMPError> {
        let deadline = clock.now + policy.timeout
        var delay = policy.initialDelay
        while true {
            do {
                try await transport.connect()
                return .success(())
            } catch {
                guard clock.now + delay < deadline else { return .failure(.transport(error)) }
                do { try await clock.sleep(for: delay) } catch { return .failure(.cancelled) }
                delay = min(delay * 2, policy.maximumDelay)
            }
        }
    }
}

/// How a session brings a dropped link back.
public struct SMPReconnectPolicy: Sendable, Hashable {
    /// How long to keep trying.
    public var timeout: Duration
    /// The wait after the first failed attempt; it doubles after each failure.
    public var initialDelay: Duration
    /// The longest wait between attempts.
    public var maximumDelay: Duration

    /// Makes a policy; by default 30 s, starting at 50 ms and doubling up to 1 s.
    public init(timeout: Duration = .seconds(30), initialDelay: Duration = .milliseconds(50), maximumDelay: Duration = .seconds(1)) {
        self.timeout = timeout
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }
}
