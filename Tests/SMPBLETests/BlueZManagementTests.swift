@testable import SMPBLE
import Testing

@Suite("The kernel's Bluetooth management interface: which adapters the kernel manages")
struct BlueZManagementTests {
    @Test("Read Controller Index List's Command Complete gives the indexes; any other event, a failure or a short answer gives none")
    func indexList() {
        // Event 0x0001, index 0xFFFF, length 7: opcode 0x0003, status 0, two indexes, 0 and 2.
        let answer: [UInt8] = [0x01, 0x00, 0xFF, 0xFF, 0x09, 0x00, 0x03, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00]
        #expect(BlueZManagement.indexList(in: answer[...]) == [0, 2])
        // None managed (e.g. the only adapter is held through the user channel).
        #expect(BlueZManagement.indexList(in: [0x01, 0x00, 0xFF, 0xFF, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00][...]) == [])
        // Index Added (0x0004) arrives unasked: not the answer.
        #expect(BlueZManagement.indexList(in: [0x04, 0x00, 0x01, 0x00, 0x00, 0x00][...]) == nil)
        // Another command's Command Complete, a failed status, a count past the end.
        #expect(BlueZManagement.indexList(in: [0x01, 0x00, 0xFF, 0xFF, 0x05, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00][...]) == nil)
        #expect(BlueZManagement.indexList(in: [0x01, 0x00, 0xFF, 0xFF, 0x03, 0x00, 0x03, 0x00, 0x01][...]) == nil)
        #expect(BlueZManagement.indexList(in: answer.dropLast(2)) == nil)
    }
}
