import CBOR
import Foundation
import Hex
import McuMgr
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// The SUIT group's requests on the wire, compared with what cbor2 (canonical) writes for the maps of
/// nRF Connect SDK's SUIT SMP extension (`ug_nrf54h20_suit_smp.rst`); smpclient has no SUIT group.
@Suite("SUIT requests on the wire")
struct SUITWireTests {
    /// Our bodies, by name, as hex.
    static func ours() throws -> [String: String] {
        let client = SMPClient(transport: LoopbackTransport(maximumPacketSize: 512))
        func chunk(_ kind: SUITUploadTarget.Kind, offset: Int, isFirst: Bool) throws -> String {
            let request = try SUITUploadTarget(client: client, kind: kind).request(offset: offset, data: [1, 2, 3], totalLength: 300, isFirst: isFirst)
            return CBORWriter().encode(request.payload).hexString
        }
        return [
            "list": try CBOREncoder().encode(SUITManifestListRead()).hexString,
            "state": try CBOREncoder().encode(SUITManifestStateRead(role: .applicationRoot)).hexString,
            "envelope_first": try chunk(.envelope(deferInstall: false), offset: 0, isFirst: true),
            "envelope_deferred": try chunk(.envelope(deferInstall: true), offset: 0, isFirst: true),
            "envelope_next": try chunk(.envelope(deferInstall: true), offset: 3, isFirst: false),
            "resource_first": try chunk(.resource(sessionID: 7), offset: 0, isFirst: true),
            "resource_next": try chunk(.resource(sessionID: 7), offset: 3, isFirst: false),
            "cache_first": try chunk(.cache(target: 1), offset: 0, isFirst: true),
            "process": try CBOREncoder().encode(SUITProcessEnvelope()).hexString,
            "poll": try CBOREncoder().encode(SUITMissingImagePoll()).hexString,
            "cleanup": try CBOREncoder().encode(SUITCleanup()).hexString,
        ]
    }

    @Test("every SUIT request body equals cbor2's canonical encoding of the documented map")
    func requests() async throws {
        let script = """
            import cbor2, json, sys
            data = bytes([1, 2, 3])
            maps = {
                "list": {}, "state": {"role": 0x20},
                "envelope_first": {"off": 0, "data": data, "len": 300},
                "envelope_deferred": {"off": 0, "data": data, "len": 300, "defer_install": True},
                "envelope_next": {"off": 3, "data": data},
                "resource_first": {"off": 0, "data": data, "len": 300, "stream_session_id": 7},
                "resource_next": {"off": 3, "data": data, "stream_session_id": 7},
                "cache_first": {"off": 0, "data": data, "len": 300, "target_id": 1},
                "process": {"off": 0, "len": 0}, "poll": {}, "cleanup": {},
            }
            json.dump({k: cbor2.dumps(v, canonical=True).hex() for k, v in maps.items()}, sys.stdout)
            """
        let output = try await Subprocess.python(script)
        let theirs = try JSONDecoder().decode([String: String].self, from: Data(output.stdout.utf8))
        let ours = try Self.ours()
        #expect(Set(theirs.keys) == Set(ours.keys))
        for (name, expected) in theirs {
            #expect(ours[name] == expected, "\(name): ours \(ours[name] ?? "-"), cbor2 \(expected)")
        }
    }

    @Test("answers as nRF Connect SDK writes them decode: a poll with a byte-string resource id, a state, the list")
    func answers() throws {
        // {"stream_session_id": 3, "resource_id": h'file://radio.bin'} as zcbor writes it (indefinite map).
        let poll = [UInt8](hex: "bf7173747265616d5f73657373696f6e5f6964036b7265736f757263655f69645066696c653a2f2f726164696f2e62696eff")!
        #expect(try CBORDecoder().decode(SUITImageRequest.self, from: poll) == SUITImageRequest(sessionID: 3, resourceID: "file://radio.bin"))
        #expect(try CBORDecoder().decode(SUITImageRequest.self, from: [0xa1, 0x62, 0x72, 0x63, 0x00]).isRequest == false)
        let list = try CBORDecoder().decode(SUITManifestList.self, from: [UInt8](hex: "a1696d616e69666573747381a164726f6c651820")!)
        #expect(list.manifests.map(\.role) == [.applicationRoot])
    }
}
