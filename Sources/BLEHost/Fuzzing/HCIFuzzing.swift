/// Entry points for a libFuzzer target (`LLVMFuzzerTestOneInput`) over the host's decoders: each
/// takes arbitrary bytes and must return, in time and memory bounded by the input, whatever
/// they hold. They run the same code the host runs on what a controller sends.
public enum HCIFuzzing {
    /// Reads `data` as an H4 byte stream from a controller: every event is decoded, every ACL
    /// packet goes through L2CAP reassembly (handles 0x001 and 0x002 open, channel MTU 517), and
    /// every whole signalling PDU is answered. Returns how many packets were decoded.
    @discardableResult
    public static func h4Stream(_ data: [UInt8]) -> Int {
        var decoder = H4StreamDecoder(maximumACLLength: 1024)
        var reassembler = L2CAPReassembler(maximumPDUSize: 517)
        reassembler.open(handle: 0x001)
        reassembler.open(handle: 0x002)
        var packets = 0
        var input = data[...]
        while !input.isEmpty {
            // Feed in uneven pieces, as a stream arrives.
            let piece = input.prefix(Int(input.first! % 37) + 1)
            input = input.dropFirst(piece.count)
            do {
                try decoder.append(piece) { output in
                    guard case .packet(let packet) = output else { return }
                    packets += 1
                    switch packet {
                    case .event(let code, let parameters):
                        _ = try? HCIEvent.decode(code: code, parameters: parameters)
                    case .acl(let acl):
                        reassembler.append(acl) { event in
                            if case .pdu(_, let pdu) = event, pdu.channel == L2CAPSignal.channel {
                                _ = (try? L2CAPSignal.decode(pdu.payload))?.reply()
                            }
                        }
                    case .command:
                        break
                    }
                }
            } catch {
                continue
            }
        }
        return packets
    }

    /// Decodes `data` as one event: the first byte is the event code, the rest its parameters.
    public static func event(_ data: [UInt8]) {
        guard let code = data.first else { return }
        _ = try? HCIEvent.decode(code: code, parameters: Array(data.dropFirst()))
    }

    /// Cuts `data` into ACL packets as HCI carries them (handle and flags, length, data); a length
    /// past the end takes what is left and is rewritten to what was taken.
    public static func aclPacketBytes(_ data: [UInt8]) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var position = 0
        while position + 4 <= data.count {
            let declared = Int(data[position + 2]) | Int(data[position + 3]) << 8
            let end = min(data.count, position + 4 + declared)
            var bytes = Array(data[position..<end])
            let length = bytes.count - 4
            bytes[2] = UInt8(length & 0xFF)
            bytes[3] = UInt8(length >> 8)
            packets.append(bytes)
            position = end
        }
        return packets
    }

    /// Reads `data` as a sequence of ACL packets (``aclPacketBytes(_:)``) through L2CAP reassembly
    /// with handle 0x001 open. Returns how many PDUs completed.
    @discardableResult
    public static func aclReassembly(_ data: [UInt8]) -> Int {
        var reassembler = L2CAPReassembler(maximumPDUSize: 517)
        reassembler.open(handle: 0x001)
        var pdus = 0
        for bytes in aclPacketBytes(data) {
            guard let packet = try? ACLDataPacket.decode(bytes) else { continue }
            reassembler.append(packet) { event in if case .pdu = event { pdus += 1 } }
        }
        return pdus
    }

    /// Reads `data` as advertising data: structures, service UUIDs and the local name.
    public static func advertisingData(_ data: [UInt8]) {
        let parsed = AdvertisingData(data)
        _ = parsed.serviceUUIDs
        _ = parsed.localName
        _ = parsed.flags
    }
}
