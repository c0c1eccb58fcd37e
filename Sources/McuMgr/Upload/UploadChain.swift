import NIOConcurrencyHelpers
import SMP

/// The next chunk, offered by a waiting upload to the answers of the chunks in flight: the first
/// answer that says the device took its chunk in order (its `off` is that chunk's end), where the
/// engine would send the next chunk itself, sends it at once, from the session's
/// executor inside the completion (``SMPClient/submitWithoutSuspending(_:group:command:payload:retryPolicy:options:completion:)``),
/// instead of after the engine's task has run. Used when the session runs on its transport's
/// executor; the engine offers only while it waits for an answer, so its state cannot change
/// under an offer, and each chunk sent this way comes back to it in the outcome of the answer
/// that sent it.
final class UploadChain: Sendable {
    /// A chunk ready to go.
    struct Link: Sendable {
        let chunk: UploadChunk
        let request: UploadChunkRequest
        let payload: [UInt8]
    }

    private struct State {
        var offered: Link?
        /// Chunks sent from completions that the engine has not taken over yet.
        var launched: [Int: SMPSentRequest] = [:]
        var closed = false
    }

    // NIO's pthread lock, which ThreadSanitizer sees (see `SingleConsumerQueue`).
    private let state = NIOLockedValueBox(State())

    /// Offers `link`, in place of any earlier offer.
    func offer(_ link: Link) {
        state.withLockedValue { s in
            if !s.closed { s.offered = link }
        }
    }

    /// Takes the offer back; `nil` when there was none or an answer took it.
    func withdraw() -> Link? {
        state.withLockedValue { s in
            defer { s.offered = nil }
            return s.offered
        }
    }

    /// For the completion of `answered`: the offered chunk, when the device reported `offset`, the
    /// end of `answered` (it took that chunk in order), and the offer was made in its epoch.
    func take(answering answered: UploadChunk, deviceOffset offset: Int) -> Link? {
        state.withLockedValue { s in
            guard let link = s.offered, !answered.isFirst, answered.epoch == link.chunk.epoch,
                  offset == answered.offset + answered.length else { return nil }
            s.offered = nil
            return link
        }
    }

    /// Puts back a chunk taken but not sent (the session could not send it at once).
    func putBack(_ link: Link) {
        state.withLockedValue { s in
            if !s.closed && s.offered == nil { s.offered = link }
        }
    }

    /// Records the request a completion sent for chunk `id`.
    func launched(_ id: Int, as request: SMPSentRequest) {
        state.withLockedValue { $0.launched[id] = request }
    }

    /// The engine took chunk `id` over.
    func adopted(_ id: Int) {
        state.withLockedValue { _ = $0.launched.removeValue(forKey: id) }
    }

    /// Ends offers; returns the requests sent for chunks the engine never took over (to cancel).
    func close() -> [SMPSentRequest] {
        state.withLockedValue { s in
            s.closed = true
            s.offered = nil
            defer { s.launched = [:] }
            return Array(s.launched.values)
        }
    }
}
