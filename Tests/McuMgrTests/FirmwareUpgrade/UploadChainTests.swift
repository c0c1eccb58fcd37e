@testable import McuMgr
@testable import SMP
import Testing

/// The offer of the next chunk to the answers of the chunks in flight (`UploadChain`): which
/// answer may take it, and what the engine gets back.
@Suite("UploadChain")
struct UploadChainTests {
    static func chunk(_ id: Int, offset: Int, length: Int = 100, epoch: Int = 0, isFirst: Bool = false) -> UploadChunk {
        UploadChunk(id: id, offset: offset, length: length, epoch: epoch, isFirst: isFirst)
    }

    static func link(_ chunk: UploadChunk) -> UploadChain.Link {
        let request = UploadChunkRequest(ImageUploadRequest(offset: chunk.offset, data: [UInt8](repeating: 1, count: chunk.length)))
        return UploadChain.Link(chunk: chunk, request: request, payload: [1, 2, 3])
    }

    @Test("only an in-order answer of the offer's epoch takes it, and only once")
    func whoTakesTheOffer() {
        let chain = UploadChain()
        let answered = Self.chunk(1, offset: 100)
        chain.offer(Self.link(Self.chunk(2, offset: 200)))
        #expect(chain.take(answering: answered, deviceOffset: 150) == nil, "the device stands inside the chunk")
        #expect(chain.take(answering: answered, deviceOffset: 300) == nil, "the device reports more than the chunk")
        #expect(chain.take(answering: Self.chunk(1, offset: 100, epoch: 1), deviceOffset: 200) == nil, "another epoch")
        #expect(chain.take(answering: Self.chunk(0, offset: 0, length: 200, isFirst: true), deviceOffset: 200) == nil,
                "the first chunk's answer may resume elsewhere")
        #expect(chain.take(answering: answered, deviceOffset: 200)?.chunk.id == 2)
        #expect(chain.take(answering: answered, deviceOffset: 200) == nil, "taken once")
        #expect(chain.withdraw() == nil, "the engine finds the offer gone")
    }

    @Test("the engine gets its offer back when no answer took it, and a chunk not sent can be put back")
    func withdrawAndPutBack() {
        let chain = UploadChain()
        chain.offer(Self.link(Self.chunk(5, offset: 500)))
        #expect(chain.withdraw()?.chunk.id == 5)
        #expect(chain.withdraw() == nil)
        chain.offer(Self.link(Self.chunk(6, offset: 600)))
        let taken = chain.take(answering: Self.chunk(4, offset: 400, length: 200), deviceOffset: 600)
        #expect(taken?.chunk.id == 6)
        chain.putBack(taken!)
        #expect(chain.withdraw()?.chunk.id == 6, "a chunk the session could not send goes back to the engine")
    }

    @Test("closing ends offers and returns the requests sent for chunks the engine never took over")
    func closeReturnsUnadopted() {
        let chain = UploadChain()
        chain.launched(7, as: SMPSentRequest(sequence: 7, token: 70))
        chain.launched(8, as: SMPSentRequest(sequence: 8, token: 80))
        chain.adopted(7)
        #expect(chain.close().map(\.sequence) == [8])
        chain.offer(Self.link(Self.chunk(9, offset: 900)))
        #expect(chain.withdraw() == nil, "no offers after close")
    }
}
