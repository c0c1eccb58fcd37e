extension GATTClient {
    /// Finds the primary services of type `uuid` (Discover Primary Service by Service UUID: ATT_FIND_BY_TYPE_VALUE_REQ).
    ///
    /// "Attribute Not Found" ends the search; an empty result means the server has no such service.
    public func discoverPrimaryServices(uuid: BluetoothUUID) async throws(GATTError) -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 0x0001
        while true {
            let request = ATTPDU.findByTypeValueRequest(start: start, end: 0xFFFF, type: 0x2800, value: uuid.littleEndianBytes)
            guard let response = try await discoveryStep(request) else { break }
            guard case .findByTypeValueResponse(let ranges) = response else { throw unexpected(response) }
            var last = start
            for range in ranges {
                guard range.found >= start, range.groupEnd >= range.found else {
                    throw .invalidResponse("service at \(hex(range.found))–\(hex(range.groupEnd)) is outside the range asked from \(hex(start))")
                }
                services.append(GATTService(uuid: uuid, startHandle: range.found, endHandle: range.groupEnd))
                last = max(last, range.groupEnd)
            }
            guard last < 0xFFFF else { break }
            start = last + 1
        }
        return services
    }

    /// Finds every primary service (Discover All Primary Services: ATT_READ_BY_GROUP_TYPE_REQ).
    public func discoverPrimaryServices() async throws(GATTError) -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 0x0001
        while true {
            let request = ATTPDU.readByGroupTypeRequest(start: start, end: 0xFFFF, type: .primaryService)
            guard let response = try await discoveryStep(request) else { break }
            guard case .readByGroupTypeResponse(let groups) = response else { throw unexpected(response) }
            var last = start
            for group in groups {
                guard group.handle >= start, group.groupEnd >= group.handle, let uuid = BluetoothUUID(littleEndian: group.value) else {
                    throw .invalidResponse("bad service group at \(hex(group.handle))")
                }
                services.append(GATTService(uuid: uuid, startHandle: group.handle, endHandle: group.groupEnd))
                last = max(last, group.groupEnd)
            }
            guard last < 0xFFFF else { break }
            start = last + 1
        }
        return services
    }

    /// Finds the characteristics of `service` (Discover All Characteristics of a Service:
    /// ATT_READ_BY_TYPE_REQ for 0x2803), each with the handle range its descriptors may use.
    public func discoverCharacteristics(of service: GATTService) async throws(GATTError) -> [GATTCharacteristic] {
        var found: [GATTCharacteristic] = []
        var start = service.startHandle
        while start <= service.endHandle {
            let request = ATTPDU.readByTypeRequest(start: start, end: service.endHandle, type: .characteristic)
            guard let response = try await discoveryStep(request) else { break }
            guard case .readByTypeResponse(let entries) = response else { throw unexpected(response) }
            var last = start
            for entry in entries {
                let value = entry.value
                guard entry.handle >= start, entry.handle <= service.endHandle, value.count == 5 || value.count == 19 else {
                    throw .invalidResponse("bad characteristic declaration at \(hex(entry.handle)) (\(value.count)-byte value)")
                }
                let valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
                guard valueHandle > entry.handle, valueHandle <= service.endHandle,
                    let uuid = BluetoothUUID(littleEndian: value[3...])
                else {
                    throw .invalidResponse("characteristic declaration at \(hex(entry.handle)) names value handle \(hex(valueHandle))")
                }
                found.append(
                    GATTCharacteristic(
                        uuid: uuid, declarationHandle: entry.handle, valueHandle: valueHandle, endHandle: service.endHandle,
                        properties: GATTCharacteristicProperties(rawValue: value[0])))
                last = max(last, entry.handle)
            }
            guard last < service.endHandle else { break }
            start = last + 1
        }
        // Each characteristic ends where the next one's declaration begins.
        found.sort { $0.declarationHandle < $1.declarationHandle }
        for index in found.indices.dropLast() {
            found[index].endHandle = max(found[index].valueHandle, found[index + 1].declarationHandle &- 1)
        }
        return found
    }

    /// Finds the descriptors of `characteristic` (Discover All Characteristic Descriptors: ATT_FIND_INFORMATION_REQ).
    public func discoverDescriptors(of characteristic: GATTCharacteristic) async throws(GATTError) -> [GATTDescriptor] {
        var descriptors: [GATTDescriptor] = []
        guard characteristic.valueHandle < characteristic.endHandle else { return [] }
        var start = characteristic.valueHandle + 1
        while start <= characteristic.endHandle {
            let request = ATTPDU.findInformationRequest(start: start, end: characteristic.endHandle)
            guard let response = try await discoveryStep(request) else { break }
            guard case .findInformationResponse(let entries) = response else { throw unexpected(response) }
            var last = start
            for entry in entries {
                guard entry.handle >= start, entry.handle <= characteristic.endHandle else {
                    throw .invalidResponse("descriptor at \(hex(entry.handle)) is outside \(hex(start))–\(hex(characteristic.endHandle))")
                }
                descriptors.append(GATTDescriptor(uuid: entry.type, handle: entry.handle))
                last = max(last, entry.handle)
            }
            guard last < characteristic.endHandle else { break }
            start = last + 1
        }
        return descriptors
    }

    /// Finds the characteristic's Client Characteristic Configuration descriptor, writes
    /// `configuration` to it (ATT_WRITE_REQ) and delivers the characteristic's values to ``events``
    /// (or stops delivering them, for an empty configuration).
    public func setNotifications(_ configuration: GATTClientConfiguration, for characteristic: GATTCharacteristic) async throws(GATTError) {
        let descriptors = try await discoverDescriptors(of: characteristic)
        guard let cccd = descriptors.first(where: { $0.uuid == .clientCharacteristicConfiguration }) else {
            throw .notFound("the Client Characteristic Configuration descriptor of \(characteristic)")
        }
        // Subscribe first: the first notification may follow the write response at once.
        if !configuration.isEmpty { subscribe(valueHandle: characteristic.valueHandle) }
        do {
            try await write(configuration.bytes, to: cccd.handle)
        } catch {
            unsubscribe(valueHandle: characteristic.valueHandle)
            throw error
        }
        if configuration.isEmpty { unsubscribe(valueHandle: characteristic.valueHandle) }
    }

    /// Runs one discovery request; nil when the server answers "Attribute Not Found" (the end of the search).
    private func discoveryStep(_ request: ATTPDU) async throws(GATTError) -> ATTPDU? {
        do {
            return try await transact(request)
        } catch {
            if case .att(let response) = error, response.code == .attributeNotFound { return nil }
            throw error
        }
    }
}
