import CBOR
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// The "default Zephyr build" encoding: indefinite-length maps and arrays.
@Suite("Indefinite-length responses", .virtualTime)
struct IndefiniteLengthTests {
    @Test("every response map is framed 0xbf … 0xff, and our client decodes it")
    func indefiniteMaps() async throws {
        var c = DeviceConfiguration.testing
        c.usesIndefiniteLengthMaps = true
        let link = await RawLink.make(configuration: c)
        let state = try #require(try await link.exchange(bytes("08 00 00 01 00 01 31 00 a0")).first)
        #expect(state[8] == 0xbf && state.last == 0xff)
        // Inside: "images" → an indefinite array (0x9f) whose first entry is an indefinite map (0xbf).
        #expect(Array(state.dropFirst(8).prefix(10)) == [0xbf, 0x66] + Array("images".utf8) + [0x9f, 0xbf])
        await link.close()

        try await withClosing(await Fixture.make(configuration: c), close: { await $0.close() }) { (f) async throws in
            let list = try await f.request(.read, .image, 0)
            #expect(list["images"]?.arrayValue?.count == 2)
            let image = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 5000)
            #expect(try await f.upload(image)["match"]?.boolValue == true)
            #expect(try await f.error(.write, .image, 0, .textMap(["hash": .bytes([UInt8](repeating: 1, count: 32))])) == .image(.hashNotFound))
        }
    }
}
