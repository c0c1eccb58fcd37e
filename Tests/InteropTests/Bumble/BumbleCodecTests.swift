import BLEHost
import Foundation
import Hex
import SMPTestSupport
import Testing

/// Our HCI and L2CAP codecs against bumble's own (an independent implementation): bumble encodes
/// events we decode, and decodes packets we encode.
@Suite("HCI and L2CAP codecs cross-checked with bumble")
struct BumbleCodecTests {
    static func python(_ script: String) async throws -> [String] {
        try BuiltProducts.requirePeers()
        let result = try await Subprocess.run(Interop.python, ["-c", script], timeout: .seconds(60))
        guard result.status == 0 else { throw InteropError("python failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test("events bumble encodes (Command Complete, Disconnection Complete, Number Of Completed Packets, LE Connection Complete, LE Advertising Report) decode to the same fields")
    func eventsFromBumble() async throws {
        let lines = try await Self.python("""
            from bumble import hci
            from bumble.core import AdvertisingData, UUID
            a = hci.Address('F0:F1:F2:F3:F4:F5')
            events = [
                hci.HCI_Command_Complete_Event(num_hci_command_packets=1, command_opcode=hci.HCI_RESET_COMMAND, return_parameters=hci.HCI_StatusReturnParameters(status=0)),
                hci.HCI_Disconnection_Complete_Event(status=0, connection_handle=0x0041, reason=0x13),
                hci.HCI_Number_Of_Completed_Packets_Event(connection_handles=[1, 2], num_completed_packets=[3, 4]),
                hci.HCI_LE_Connection_Complete_Event(status=0, connection_handle=0x0041, role=0, peer_address_type=1, peer_address=a,
                    connection_interval=12, peripheral_latency=0, supervision_timeout=400, central_clock_accuracy=0),
                hci.HCI_LE_Advertising_Report_Event([hci.HCI_LE_Advertising_Report_Event.Report(
                    event_type=0, address_type=1, address=a, rssi=-50,
                    data=bytes(AdvertisingData([(AdvertisingData.COMPLETE_LOCAL_NAME, b'smp-sim'),
                        (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS, bytes(UUID('8D53DC1D-1DB7-4CD3-868B-8A527460AA84')))])))]),
            ]
            for e in events: print(bytes(e).hex())
            """)
        try #require(lines.count == 5)
        var decoder = H4StreamDecoder()
        var events: [HCIEvent] = []
        try decoder.append(try lines.flatMap { try #require([UInt8](hex: $0)) }) { output in
            guard case .packet(.event(let code, let parameters)) = output, let event = try? HCIEvent.decode(code: code, parameters: parameters) else {
                Issue.record("not an event: \(output)")
                return
            }
            events.append(event)
        }
        try #require(events.count == 5)
        #expect(events[0] == .commandComplete(credits: 1, opcode: 0x0C03, returnParameters: [0]))
        #expect(events[1] == .disconnectionComplete(status: .success, handle: 0x41, reason: .remoteUserTerminated))
        #expect(events[2] == .numberOfCompletedPackets([CompletedPackets(handle: 1, count: 3), CompletedPackets(handle: 2, count: 4)]))
        guard case .le(.connectionComplete(let complete)) = events[3], case .le(.advertisingReports(let reports)) = events[4] else {
            Issue.record("LE events: \(events[3]) \(events[4])")
            return
        }
        #expect(complete.handle == 0x41 && complete.isCentral && complete.interval == 12 && complete.supervisionTimeout == 400)
        #expect(complete.peer == LEAddress("F0:F1:F2:F3:F4:F5", kind: .random))
        let report = try #require(reports.first)
        #expect(reports.count == 1 && report.rssi == -50 && report.eventType == .connectable)
        #expect(report.address == LEAddress("F0:F1:F2:F3:F4:F5", kind: .random))
        #expect(report.data.localName == "smp-sim")
        #expect(report.data.serviceUUIDs.map { $0.description.uppercased() } == ["8D53DC1D-1DB7-4CD3-868B-8A527460AA84"])
    }

    @Test("packets we encode (LE Create Connection, Disconnect, ACL fragments of an L2CAP PDU) read back in bumble as the same fields")
    func packetsToBumble() async throws {
        let peer = try #require(LEAddress("F0:F1:F2:F3:F4:F5", kind: .random))
        let create = HCICommand.leCreateConnection(peer: peer, ownAddress: .random, parameters: LEConnectionParameters()).packet.h4Bytes
        let disconnect = HCICommand.disconnect(handle: 0x41, reason: .remoteUserTerminated).packet.h4Bytes
        let pdu = L2CAPPDU(channel: 4, payload: [0x02, 0xF2, 0x01] + [UInt8](repeating: 0x55, count: 60))
        let fragments = pdu.fragments(handle: 0x41, fragmentSize: 27).map { HCIPacket.acl($0).h4Bytes }
        let hex = ([create, disconnect] + fragments).map(\.hexString)
        let result = try await Subprocess.run(Interop.python, ["-c", """
            import sys
            from bumble import hci
            packets = [hci.HCI_Packet.from_bytes(bytes.fromhex(h)) for h in sys.argv[1:]]
            c, d = packets[0], packets[1]
            print(type(c).__name__, c.peer_address, int(c.peer_address_type), int(c.own_address_type), c.connection_interval_min, c.connection_interval_max, c.max_latency, c.supervision_timeout)
            print(type(d).__name__, d.connection_handle, int(d.reason))
            pdus = []
            assembler = hci.HCI_AclDataPacketAssembler(pdus.append)
            for p in packets[2:]: assembler.feed_packet(p)
            print(len(pdus), pdus[0].hex() if pdus else '')
            """] + hex, timeout: .seconds(60))
        let out = result.stdout.split(separator: "\n").map(String.init)
        try #require(out.count == 3, "\(result.stderr)")
        #expect(out[0] == "HCI_LE_Create_Connection_Command F0:F1:F2:F3:F4:F5 1 1 6 12 0 400")
        #expect(out[1] == "HCI_Disconnect_Command 65 19")
        #expect(out[2] == "1 " + pdu.bytes.hexString)
    }
}
