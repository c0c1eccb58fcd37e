import GATT
import Hex
import Testing

@Suite("ATT PDUs")
struct ATTPDUTests {
    static let smpService = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!

    /// PDUs and their bytes, written out by hand from Core spec Vol 3 Part F 3.4.
    static let references: [(ATTPDU, String)] = [
        (.exchangeMTURequest(clientRxMTU: 498), "02f201"),
        (.exchangeMTUResponse(serverRxMTU: 247), "03f700"),
        (.errorResponse(request: .findByTypeValueRequest, handle: 0x0013, code: .attributeNotFound), "010613000a"),
        (.findInformationRequest(start: 0x0013, end: 0xFFFF), "041300ffff"),
        (.findInformationResponse([ATTHandleType(handle: 0x0013, type: .clientCharacteristicConfiguration)]), "050113000229"),
        (
            .findByTypeValueRequest(start: 1, end: 0xFFFF, type: 0x2800, value: smpService.littleEndianBytes),
            "060100ffff002884aa6074528a8b86d34cb71d1ddc538d"
        ),
        (.findByTypeValueResponse([ATTHandleRange(found: 0x0010, groupEnd: 0x0013)]), "0710001300"),
        (.readByTypeRequest(start: 0x0010, end: 0x0013, type: .characteristic), "08100013000328"),
        (.readByTypeResponse([ATTHandleValue(handle: 0x0002, value: [0x02, 0x03, 0x00, 0x00, 0x2A])]), "0907020002030000" + "2a"),
        (.readRequest(handle: 0x0003), "0a0300"),
        (.readResponse(value: Array("sim".utf8)), "0b73696d"),
        (.readByGroupTypeRequest(start: 1, end: 0xFFFF, type: .primaryService), "100100ffff0028"),
        (.readByGroupTypeResponse([ATTGroupValue(handle: 1, groupEnd: 3, value: [0x00, 0x18])]), "1106010003000018"),
        (.writeRequest(handle: 0x0013, value: [0x01, 0x00]), "1213000100"),
        (.writeResponse, "13"),
        (.writeCommand(handle: 0x0012, value: [0x02, 0x00]), "52120002" + "00"),
        (.handleValueNotification(handle: 0x0012, value: [0xAA]), "1b1200aa"),
        (.handleValueIndication(handle: 0x0012, value: []), "1d1200"),
        (.handleValueConfirmation, "1e"),
    ]

    @Test("encodings match the spec's layouts, and decode back", arguments: references.indices)
    func referenceBytes(index: Int) throws {
        let (pdu, hex) = Self.references[index]
        #expect(pdu.bytes == Self.bytes(hex))
        #expect(try ATTPDU(decoding: Self.bytes(hex)) == pdu)
    }

    @Test func uuidsReadAndPrintBothForms() throws {
        #expect(Self.smpService.description == "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")
        #expect(BluetoothUUID(string: "2902") == .clientCharacteristicConfiguration)
        #expect(BluetoothUUID(string: "00002902-0000-1000-8000-00805F9B34FB") == .clientCharacteristicConfiguration)
        #expect(BluetoothUUID.clientCharacteristicConfiguration.littleEndianBytes == [0x02, 0x29])
        #expect(BluetoothUUID(littleEndian: Self.smpService.littleEndianBytes) == Self.smpService)
        #expect(BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B") == nil)
        #expect(BluetoothUUID(string: "XYZW") == nil)
        #expect(BluetoothUUID(littleEndian: [1, 2, 3]) == nil)
    }

    @Test func errorCodesCarryTheSpecNames() {
        #expect(ATTErrorCode.attributeNotFound.name == "Attribute Not Found")
        #expect(ATTErrorCode.insufficientAuthentication.description == "Insufficient Authentication (0x05)")
        #expect(ATTErrorCode.valueNotAllowed.name == "Value Not Allowed")
        #expect(ATTErrorCode(rawValue: 0x80).name == "Application Error")
        #expect(ATTErrorCode(rawValue: 0x20).name == "Reserved")
        #expect(ATTOpcode.writeCommand.isCommand && !ATTOpcode.writeRequest.isCommand)
        #expect(ATTOpcode.readByTypeRequest.expectedResponse == .readByTypeResponse)
    }

    /// Malformed input and the error it must give.
    static let malformed: [(String, ATTDecodingError)] = [
        ("", .empty),
        ("7f", .unknownOpcode(ATTOpcode(rawValue: 0x7F))),
        ("ff0102", .unknownOpcode(ATTOpcode(rawValue: 0xFF))),
        ("160100", .unsupportedOpcode(.prepareWriteRequest)),
        ("d2120000", .unsupportedOpcode(.signedWriteCommand)),
        ("02f2", .invalidLength(opcode: .exchangeMTURequest, length: 2, expected: "3")),
        ("03f70000", .invalidLength(opcode: .exchangeMTUResponse, length: 4, expected: "3")),
        ("010613", .invalidLength(opcode: .errorResponse, length: 3, expected: "5")),
        ("0710001300ff", .malformed(opcode: .findByTypeValueResponse, reason: "handle list of 5 bytes is not a multiple of 4")),
        ("07", .invalidLength(opcode: .findByTypeValueResponse, length: 1, expected: "at least 5")),
        ("0507130002", .malformed(opcode: .findInformationResponse, reason: "unknown format 0x7")),
        ("0501130002", .malformed(opcode: .findInformationResponse, reason: "3 bytes of entries do not make whole 4-byte entries")),
        ("09", .invalidLength(opcode: .readByTypeResponse, length: 1, expected: "at least 2")),
        ("09ff020002", .malformed(opcode: .readByTypeResponse, reason: "3 bytes of entries do not make whole 255-byte entries")),
        ("0901020002", .malformed(opcode: .readByTypeResponse, reason: "entry length 1 is shorter than its 2-byte handles")),
        ("110301000300", .malformed(opcode: .readByGroupTypeResponse, reason: "entry length 3 is shorter than its 4-byte handles")),
        ("0801000200030000", .malformed(opcode: .readByTypeRequest, reason: "attribute type of 3 bytes is neither a 16-bit nor a 128-bit UUID")),
        ("1b12", .invalidLength(opcode: .handleValueNotification, length: 2, expected: "at least 3")),
        ("1e00", .invalidLength(opcode: .handleValueConfirmation, length: 2, expected: "1")),
    ]

    @Test("malformed PDUs give typed errors", arguments: malformed.indices)
    func malformedInput(index: Int) {
        let (hex, expected) = Self.malformed[index]
        #expect(throws: expected) { try ATTPDU(decoding: Self.bytes(hex)) }
    }

    @Test("random bytes never crash the decoder, and what decodes encodes back")
    func fuzz() throws {
        var state: UInt64 = 0x1234_5678_9ABC_DEF1
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let opcodes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x10, 0x11, 0x12, 0x13, 0x1B, 0x1D, 0x1E, 0x52]
        var decoded = 0
        for _ in 0..<20_000 {
            let length = Int(next() % 40)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            if !bytes.isEmpty, next() % 4 != 0 { bytes[0] = opcodes[Int(next() % UInt64(opcodes.count))] }
            guard let pdu = try? ATTPDU(decoding: bytes) else { continue }
            decoded += 1
            #expect(try ATTPDU(decoding: pdu.bytes) == pdu)
        }
        #expect(decoded > 1000)
    }

    /// The bytes of hex text from the tables above (well-formed by construction).
    static func bytes(_ hex: String) -> [UInt8] {
        [UInt8](hex: hex)!
    }
}
