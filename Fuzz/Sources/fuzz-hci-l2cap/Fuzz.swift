// products: BLEHost
import BLEHost
import FuzzSupport

/// What a controller (a UART, a TCP virtual controller, the user channel) sends our LE host: the
/// entry points of `HCIFuzzing` (the code the host runs), and beside them the same decoders with
/// their invariants checked.
///
/// Mode 0 reads the input as an H4 stream: decoded a byte at a time and in one piece, every packet
/// re-encodes to a packet the decoder reads back, the decoder holds at most one packet's header
/// and bytes, the output does not depend on how the stream was cut (when it stays in step) and,
/// when nothing was skipped, the packets are the stream. Events are decoded; ACL packets go through
/// L2CAP reassembly (handles opened and closed by connection events), whose PDUs stay within the
/// channel MTU and whose buffers stay within one PDU per open handle; signalling PDUs are answered.
/// Mode 1 reads the input as ACL packets for reassembly, then sends a well-formed PDU, which must
/// come out whole whatever came before. Every input is also read as one event, one signalling
/// command and advertising data.
///
/// Input: a mode byte, then the bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCIL2CAP(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let mode = input.byte() & 1
    let data = input.rest()
    if mode == 0 {
        checkH4Stream(data)
    } else {
        checkACLSequence(data)
    }
    HCIFuzzing.event(data)
    if let code = data.first { checkEvent(code: code, parameters: Array(data.dropFirst())) }
    checkSignal(data)
    HCIFuzzing.advertisingData(data)
    checkAdvertisingData(AdvertisingData(data))
    return 0
}

/// The ACL data length the host's decoder accepts (as `HCIFuzzing.h4Stream` runs it).
let maximumACLLength = 1024
/// The L2CAP channel MTU of the host.
let maximumPDUSize = 517

func checkH4Stream(_ stream: [UInt8]) {
    let packets = HCIFuzzing.h4Stream(stream)

    var decoder = H4StreamDecoder(maximumACLLength: maximumACLLength)
    var outputs: [H4DecoderOutput] = []
    var outOfStep = 0
    for byte in stream {
        do throws(HCIDecodingError) {
            try decoder.append(CollectionOfOne(byte)) { outputs.append($0) }
        } catch {
            guard case .unknownPacketType(let type) = error, H4PacketType(rawValue: type) == nil else {
                fatalError("the H4 decoder threw \(error) for an indicator it knows")
            }
            outOfStep += 1
            precondition(decoder.bufferedCount == 0, "the decoder holds bytes after losing step")
        }
        // One packet at most: indicator, the longest header (4) and the longest payload taken.
        precondition(decoder.bufferedCount <= 1 + 4 + max(maximumACLLength, 255), "the H4 decoder holds \(decoder.bufferedCount) bytes")
    }

    if outOfStep == 0 {
        var whole = H4StreamDecoder(maximumACLLength: maximumACLLength)
        var wholeOutputs: [H4DecoderOutput] = []
        do throws(HCIDecodingError) {
            try whole.append(stream) { wholeOutputs.append($0) }
        } catch {
            fatalError("the stream lost step in one piece but not byte by byte: \(error)")
        }
        precondition(wholeOutputs == outputs, "the H4 decoder's output depends on how the stream was cut")
        precondition(packets == outputs.filter(\.isPacket).count, "HCIFuzzing.h4Stream decoded \(packets) packets, the decoder \(outputs.count)")
        if outputs.allSatisfy(\.isPacket), decoder.bufferedCount == 0 {
            let joined = outputs.flatMap { output -> [UInt8] in
                guard case .packet(let packet) = output else { return [] }
                return packet.h4Bytes
            }
            precondition(joined == stream, "the packets decoded do not add up to the stream")
        }
    }

    var host = Host(handles: [0x001, 0x002])
    for output in outputs {
        switch output {
        case .packet(let packet):
            var again = H4StreamDecoder(maximumACLLength: maximumACLLength)
            var reread: [H4DecoderOutput] = []
            do throws(HCIDecodingError) {
                try again.append(packet.h4Bytes) { reread.append($0) }
            } catch {
                fatalError("a decoded packet's encoding does not decode: \(error)")
            }
            precondition(reread == [output] && again.bufferedCount == 0, "\(packet) reads back as \(reread)")
            switch packet {
            case .event(let code, let parameters):
                precondition(parameters.count <= 255)
                switch checkEvent(code: code, parameters: parameters) {
                case .disconnectionComplete(_, let handle, _)?: host.disconnected(handle)
                case .le(.connectionComplete(let complete))? where complete.status == .success: host.connected(complete.handle)
                default: break
                }
            case .acl(let acl):
                precondition(acl.data.count <= maximumACLLength, "an ACL packet past the length limit")
                host.receive(acl)
            case .command(_, let parameters):
                precondition(parameters.count <= 255)
            }
        case .ignored(let type, let length):
            precondition(type == .sco || type == .iso, "\(type) packets ignored")
            precondition(length <= 0x3FFF)
        case .skipped(let error):
            precondition(!error.description.isEmpty)
        }
    }
}

/// The host's L2CAP side: reassembly on the handles that connection events opened.
struct Host {
    var reassembler = L2CAPReassembler(maximumPDUSize: maximumPDUSize)
    var openHandles: Set<UInt16> = []

    /// A host with `handles` connected (`HCIFuzzing.h4Stream` opens 0x001 and 0x002, `aclReassembly` 0x001).
    init(handles: Set<UInt16>) {
        for handle in handles { connected(handle) }
    }

    mutating func connected(_ handle: UInt16) {
        reassembler.open(handle: handle)
        openHandles.insert(handle & 0x0FFF)
    }

    mutating func disconnected(_ handle: UInt16) {
        let held = reassembler.bufferedCount
        let dropped = reassembler.close(handle: handle)
        precondition(reassembler.bufferedCount == held - dropped, "closing a handle did not drop what it held")
        precondition(!reassembler.isOpen(handle: handle))
        openHandles.remove(handle & 0x0FFF)
    }

    /// One ACL packet; returns what it completed.
    @discardableResult
    mutating func receive(_ acl: ACLDataPacket) -> [L2CAPReassemblyEvent] {
        var events: [L2CAPReassemblyEvent] = []
        let wasOpen = reassembler.isOpen(handle: acl.handle)
        reassembler.append(acl) { events.append($0) }
        for event in events {
            switch event {
            case .pdu(let handle, let pdu):
                precondition(wasOpen && handle == acl.handle, "a PDU for handle \(handle) from a packet for \(acl.handle)")
                precondition(pdu.payload.count <= maximumPDUSize, "a \(pdu.payload.count)-byte PDU past the channel MTU")
                if pdu.channel == L2CAPSignal.channel { checkSignal(pdu.payload) }
            case .dropped(let error):
                precondition(!error.description.isEmpty)
                if case .unknownHandle = error { precondition(!wasOpen, "an open handle's packet dropped as unknown") }
            }
        }
        precondition(events.filter(\.isPDU).count <= 1, "one ACL packet completed more than one PDU")
        // Per open handle: less than one PDU with its 4-byte header.
        precondition(reassembler.bufferedCount <= openHandles.count * (maximumPDUSize + 3), "reassembly holds \(reassembler.bufferedCount) bytes")
        return events
    }
}

/// The input as ACL packets (as `HCIFuzzing.aclReassembly` reads it), then a well-formed PDU on
/// handle 0x001, cut into fragments by the input's length, which must come out whole.
func checkACLSequence(_ data: [UInt8]) {
    let completed = HCIFuzzing.aclReassembly(data)
    var host = Host(handles: [0x001])
    var pdus = 0
    for bytes in HCIFuzzing.aclPacketBytes(data) {
        let packet: ACLDataPacket
        do throws(HCIDecodingError) {
            packet = try ACLDataPacket.decode(bytes)
        } catch {
            guard case .invalidBoundaryFlag = error else { fatalError("a well-sized ACL packet failed: \(error)") }
            continue
        }
        precondition(packet.bytes == bytes, "\(packet) does not encode to its bytes")
        pdus += host.receive(packet).filter(\.isPDU).count
    }
    precondition(pdus == completed, "HCIFuzzing.aclReassembly completed \(completed) PDUs, the checked run \(pdus)")

    let payload = Array(data.prefix(maximumPDUSize))
    let pdu = L2CAPPDU(channel: 0x0004, payload: payload)
    var delivered: [L2CAPReassemblyEvent] = []
    for fragment in pdu.fragments(handle: 0x001, fragmentSize: data.count % 64 + 1) {
        delivered += host.receive(fragment)
    }
    precondition(delivered.last == .pdu(handle: 0x001, pdu), "a well-formed PDU after \(data.count) bytes of ACL did not come out whole")
    precondition(delivered.filter(\.isPDU).count == 1)
}

/// One event, decoded and checked against its parameters; nil when it does not decode.
@discardableResult
func checkEvent(code: UInt8, parameters: [UInt8]) -> HCIEvent? {
    let event: HCIEvent
    do throws(HCIDecodingError) {
        event = try HCIEvent.decode(code: code, parameters: parameters)
    } catch {
        precondition(!error.description.isEmpty)
        return nil
    }
    switch event {
    case .unknown(let unknownCode, let kept):
        precondition(unknownCode == code && kept == parameters, "an unknown event not kept as it arrived")
    case .numberOfCompletedPackets(let entries):
        precondition(1 + entries.count * 4 <= parameters.count, "more completed-packet entries than bytes")
        precondition(entries.allSatisfy { $0.handle <= 0x0FFF })
    case .disconnectionComplete(_, let handle, _):
        precondition(handle <= 0x0FFF)
    case .le(.connectionComplete(let complete)):
        precondition(complete.handle <= 0x0FFF)
    case .le(.advertisingReports(let reports)):
        // Each report takes at least 10 bytes besides its data, after the subevent and count bytes.
        precondition(2 + reports.reduce(0) { $0 + 10 + $1.data.bytes.count } <= parameters.count, "advertising reports past the event")
        reports.forEach { checkAdvertisingData($0.data) }
    default:
        break
    }
    return event
}

/// One LE signalling command: it re-encodes to a prefix of its bytes, and the central's answer
/// echoes its identifier and reads back.
func checkSignal(_ payload: [UInt8]) {
    guard let signal = try? L2CAPSignal.decode(payload) else { return }
    precondition(payload.starts(with: signal.bytes), "a signalling command does not encode to its bytes")
    switch signal.reply() {
    case .respond(let response, let update):
        precondition(signal.identifier != 0 && response.identifier == signal.identifier, "an answer with another identifier")
        precondition((try? L2CAPSignal.decode(response.bytes)) == response, "an answer that does not read back")
        if let update { precondition(signal.code == 0x12 && update.isValid, "an invalid parameter update accepted") }
    case .ignore(let why):
        precondition(!why.isEmpty)
    }
}

/// Advertising data: the structures lie inside the bytes; the UUIDs come from them.
func checkAdvertisingData(_ data: AdvertisingData) {
    let structures = data.structures
    precondition(structures.reduce(0) { $0 + 2 + $1.value.count } <= data.bytes.count, "AD structures past the data")
    precondition(data.serviceUUIDs.count <= data.bytes.count / 2)
    _ = data.localName
    _ = data.flags
    _ = data.hasCompleteName
}

extension H4DecoderOutput {
    var isPacket: Bool {
        if case .packet = self { return true }
        return false
    }
}

extension L2CAPReassemblyEvent {
    var isPDU: Bool {
        if case .pdu = self { return true }
        return false
    }
}
