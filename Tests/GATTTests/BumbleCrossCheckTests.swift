import Foundation
import GATT
import Hex
import SMPTestSupport
import Testing

/// bumble (PyPI), an independent Bluetooth stack, builds the same PDUs from the same fields; our
/// encoder must produce its bytes, our decoder must read them, and bumble must parse ours.
@Suite("ATT PDUs against bumble")
struct BumbleCrossCheckTests {
    /// Each line of the input file: a JSON description of one PDU. Each line out: bumble's bytes for it (hex),
    /// then the bumble class that parsed our bytes.
    static let script = #"""
        import json, sys
        from bumble import att
        from bumble.core import UUID

        def uuid(text):
            return UUID(text)

        def le16(v):
            return v.to_bytes(2, "little")

        def build(d):
            k = d["kind"]
            if k == "error": return att.ATT_Error_Response(request_opcode_in_error=d["request"], attribute_handle_in_error=d["handle"], error_code=d["code"])
            if k == "mtu_req": return att.ATT_Exchange_MTU_Request(client_rx_mtu=d["mtu"])
            if k == "mtu_rsp": return att.ATT_Exchange_MTU_Response(server_rx_mtu=d["mtu"])
            if k == "find_info_req": return att.ATT_Find_Information_Request(starting_handle=d["start"], ending_handle=d["end"])
            if k == "find_info_rsp":
                fmt = 1 if len(uuid(d["uuids"][0]).to_bytes()) == 2 else 2
                data = b"".join(le16(h) + uuid(u).to_bytes() for h, u in zip(d["handles"], d["uuids"]))
                return att.ATT_Find_Information_Response(format=fmt, information_data=data)
            if k == "find_type_req": return att.ATT_Find_By_Type_Value_Request(starting_handle=d["start"], ending_handle=d["end"], attribute_type=UUID.from_16_bits(d["type"]), attribute_value=bytes.fromhex(d["value"]))
            if k == "find_type_rsp":
                return att.ATT_Find_By_Type_Value_Response(handles_information_list=b"".join(le16(a) + le16(b) for a, b in d["ranges"]))
            if k == "read_type_req": return att.ATT_Read_By_Type_Request(starting_handle=d["start"], ending_handle=d["end"], attribute_type=uuid(d["type"]))
            if k == "read_type_rsp":
                values = [bytes.fromhex(v) for v in d["values"]]
                return att.ATT_Read_By_Type_Response(length=2 + len(values[0]), attribute_data_list=b"".join(le16(h) + v for h, v in zip(d["handles"], values)))
            if k == "read_group_req": return att.ATT_Read_By_Group_Type_Request(starting_handle=d["start"], ending_handle=d["end"], attribute_group_type=uuid(d["type"]))
            if k == "read_group_rsp":
                values = [bytes.fromhex(v) for v in d["values"]]
                return att.ATT_Read_By_Group_Type_Response(length=4 + len(values[0]), attribute_data_list=b"".join(le16(h) + le16(e) + v for h, e, v in zip(d["handles"], d["ends"], values)))
            if k == "read_req": return att.ATT_Read_Request(attribute_handle=d["handle"])
            if k == "read_rsp": return att.ATT_Read_Response(attribute_value=bytes.fromhex(d["value"]))
            if k == "write_req": return att.ATT_Write_Request(attribute_handle=d["handle"], attribute_value=bytes.fromhex(d["value"]))
            if k == "write_rsp": return att.ATT_Write_Response()
            if k == "write_cmd": return att.ATT_Write_Command(attribute_handle=d["handle"], attribute_value=bytes.fromhex(d["value"]))
            if k == "ntf": return att.ATT_Handle_Value_Notification(attribute_handle=d["handle"], attribute_value=bytes.fromhex(d["value"]))
            if k == "ind": return att.ATT_Handle_Value_Indication(attribute_handle=d["handle"], attribute_value=bytes.fromhex(d["value"]))
            if k == "cfm": return att.ATT_Handle_Value_Confirmation()
            raise ValueError(k)

        for line in open(sys.argv[1]):
            d = json.loads(line)
            theirs = bytes(build(d)).hex()
            parsed = att.ATT_PDU.from_bytes(bytes.fromhex(d["ours"]))
            print(json.dumps({"bytes": theirs, "class": type(parsed).__name__, "reencoded": bytes(parsed).hex()}))
        """#

    static let smp = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!

    /// Our PDU, the fields bumble builds it from, and bumble's class name for it.
    nonisolated(unsafe) static let cases: [(ATTPDU, [String: Any], String)] = [
        (.errorResponse(request: .writeRequest, handle: 0x12, code: .valueNotAllowed), ["kind": "error", "request": 0x12, "handle": 0x12, "code": 0x13], "ATT_Error_Response"),
        (.exchangeMTURequest(clientRxMTU: 498), ["kind": "mtu_req", "mtu": 498], "ATT_Exchange_MTU_Request"),
        (.exchangeMTUResponse(serverRxMTU: 247), ["kind": "mtu_rsp", "mtu": 247], "ATT_Exchange_MTU_Response"),
        (.findInformationRequest(start: 0x13, end: 0x13), ["kind": "find_info_req", "start": 0x13, "end": 0x13], "ATT_Find_Information_Request"),
        (
            .findInformationResponse([ATTHandleType(handle: 0x13, type: .clientCharacteristicConfiguration), ATTHandleType(handle: 0x14, type: BluetoothUUID(0x2901))]),
            ["kind": "find_info_rsp", "handles": [0x13, 0x14], "uuids": ["2902", "2901"]], "ATT_Find_Information_Response"
        ),
        (
            .findInformationResponse([ATTHandleType(handle: 0x12, type: smp)]),
            ["kind": "find_info_rsp", "handles": [0x12], "uuids": [smp.description]], "ATT_Find_Information_Response"
        ),
        (
            .findByTypeValueRequest(start: 1, end: 0xFFFF, type: 0x2800, value: smp.littleEndianBytes),
            ["kind": "find_type_req", "start": 1, "end": 0xFFFF, "type": 0x2800, "value": hex(smp.littleEndianBytes)], "ATT_Find_By_Type_Value_Request"
        ),
        (
            .findByTypeValueResponse([ATTHandleRange(found: 0x10, groupEnd: 0x13), ATTHandleRange(found: 0x20, groupEnd: 0xFFFF)]),
            ["kind": "find_type_rsp", "ranges": [[0x10, 0x13], [0x20, 0xFFFF]]], "ATT_Find_By_Type_Value_Response"
        ),
        (.readByTypeRequest(start: 0x10, end: 0x13, type: .characteristic), ["kind": "read_type_req", "start": 0x10, "end": 0x13, "type": "2803"], "ATT_Read_By_Type_Request"),
        (.readByTypeRequest(start: 1, end: 9, type: smp), ["kind": "read_type_req", "start": 1, "end": 9, "type": smp.description], "ATT_Read_By_Type_Request"),
        (
            .readByTypeResponse([ATTHandleValue(handle: 0x11, value: [0x14, 0x12, 0x00] + smp.littleEndianBytes)]),
            ["kind": "read_type_rsp", "handles": [0x11], "values": [hex([0x14, 0x12, 0x00] + smp.littleEndianBytes)]], "ATT_Read_By_Type_Response"
        ),
        (.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService), ["kind": "read_group_req", "start": 1, "end": 0xFFFF, "type": "2800"], "ATT_Read_By_Group_Type_Request"),
        (
            .readByGroupTypeResponse([ATTGroupValue(handle: 1, groupEnd: 3, value: [0x00, 0x18]), ATTGroupValue(handle: 4, groupEnd: 7, value: [0x01, 0x18])]),
            ["kind": "read_group_rsp", "handles": [1, 4], "ends": [3, 7], "values": ["0018", "0118"]], "ATT_Read_By_Group_Type_Response"
        ),
        (.readRequest(handle: 3), ["kind": "read_req", "handle": 3], "ATT_Read_Request"),
        (.readResponse(value: Array("mcumgr-sim".utf8)), ["kind": "read_rsp", "value": hex(Array("mcumgr-sim".utf8))], "ATT_Read_Response"),
        (.writeRequest(handle: 0x13, value: [1, 0]), ["kind": "write_req", "handle": 0x13, "value": "0100"], "ATT_Write_Request"),
        (.writeResponse, ["kind": "write_rsp"], "ATT_Write_Response"),
        (.writeCommand(handle: 0x12, value: [0x02, 0, 0, 4, 0, 0, 0x42, 0]), ["kind": "write_cmd", "handle": 0x12, "value": "0200000400004200"], "ATT_Write_Command"),
        (.handleValueNotification(handle: 0x12, value: [3, 0, 0, 2]), ["kind": "ntf", "handle": 0x12, "value": "03000002"], "ATT_Handle_Value_Notification"),
        (.handleValueIndication(handle: 0x2A05, value: [1, 0, 0xFF, 0xFF]), ["kind": "ind", "handle": 0x2A05, "value": "0100ffff"], "ATT_Handle_Value_Indication"),
        (.handleValueConfirmation, ["kind": "cfm"], "ATT_Handle_Value_Confirmation"),
    ]

    @Test func ourBytesAreBumblesBytesBothWays() async throws {
        let input = try Self.cases.map { pdu, fields, _ -> String in
            var description = fields
            description["ours"] = Self.hex(pdu.bytes)
            return String(decoding: try JSONSerialization.data(withJSONObject: description, options: [.sortedKeys]), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
        let output = try await Subprocess.python(Self.script, input: Data(input.utf8)).stdout
        let lines = output.split(separator: "\n")
        try #require(lines.count == Self.cases.count, "bumble answered \(lines.count) of \(Self.cases.count): \(output)")
        for ((pdu, _, bumbleClass), line) in zip(Self.cases, lines) {
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            let theirs = try #require(answer["bytes"])
            #expect(theirs == Self.hex(pdu.bytes), "bumble encodes \(pdu.opcode) as \(theirs)")
            #expect(try ATTPDU(decoding: ATTPDUTests.bytes(theirs)) == pdu)
            #expect(answer["class"] == bumbleClass, "bumble parsed our \(pdu.opcode) as \(answer["class"] ?? "?")")
            #expect(answer["reencoded"] == Self.hex(pdu.bytes))
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.hexString
    }
}
