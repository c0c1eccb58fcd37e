import SMP

extension SimulatedDevice {
    /// Serves the device end of a `LoopbackTransport` until its request stream ends or
    /// ``stopServing()`` is called. A disconnect fault drops the link and refuses reconnection
    /// for the fault's `reconnectDelay`.
    ///
    /// - Parameters:
    ///   - loopback: the device end of a `LoopbackTransport` to serve.
    ///   - disconnectsOnReset: also drop the link while the device reboots, as BLE does.
    @discardableResult
    public func serve(_ loopback: LoopbackDevice, disconnectsOnReset: Bool = false) -> TransportID {
        let clock = self.clock
        let id = registerTransport(name: "loopback", disconnectsOnReset: disconnectsOnReset) { duration in
            loopback.acceptsConnections = false
            loopback.disconnect(reason: "simulated device dropped the link")
            clock.task {
                try? await clock.sleep(for: duration)
                loopback.acceptsConnections = true
            }
        }
        let task = clock.task {
            for await packet in loopback.requests {
                self.receive(packet, from: id) { response in loopback.respond(response) }
            }
        }
        servingTasks.append(task)
        return id
    }

    /// Makes a `LoopbackTransport` whose device end this device serves.
    public func makeLoopbackTransport(maximumPacketSize: Int? = nil, disconnectsOnReset: Bool = false) -> LoopbackTransport {
        let transport = LoopbackTransport(maximumPacketSize: maximumPacketSize ?? configuration.bufferSize)
        serve(transport.device, disconnectsOnReset: disconnectsOnReset)
        return transport
    }
}
