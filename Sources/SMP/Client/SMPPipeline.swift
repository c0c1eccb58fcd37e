/// A source of requests that a session keeps in flight as fast as its window allows, and the
/// receiver of their outcomes: how many requests (an upload's chunks) are pipelined through one
/// ``SMPClient``.
///
/// The session asks ``nextRequest()`` whenever its window has room (on ``SMPClient/attach(_:)``,
/// after each outcome, and on ``SMPClient/resume(_:)``), sends what it gets, and hands each
/// answer or failure to ``complete(_:with:)`` in the order they come. It calls these only on its
/// own executor, where the next request is sent inside the handling of the answer before it: an
/// object that lives there too (created in code isolated to the session) keeps its state without
/// locks. A request the pipeline cannot send yet (it waits for an answer, is paused or recovering)
/// is simply not returned; the pipeline calls ``SMPClient/resume(_:)`` when it has one again.
public protocol SMPPipeline: AnyObject {
    /// The request to send now, or `nil` when there is none for now.
    func nextRequest() -> SMPPipelineRequest?
    /// The answer packet (whatever its status) or the error that ended the request tagged `tag`.
    ///
    /// A refusal for lack of room (`MGMT_ERR_ENOMEM`, busy) arrives like any answer; the session
    /// has already narrowed its window and holds the pipeline's next requests back as long as the
    /// device needs (see ``SMPClient``).
    func complete(_ tag: Int, with result: Result<SMPPacket, SMPError>)
    /// Called after the session sent what the pipeline offered after an outcome: the place for
    /// work that must not delay those requests (progress reports, encoding the next request ahead).
    func didSend()
}

extension SMPPipeline {
    /// Nothing to do after sending.
    public func didSend() {}
}

/// One request of an ``SMPPipeline``: what to send and the tag its outcome comes back with.
public struct SMPPipelineRequest: Sendable {
    /// Read or write.
    public var operation: SMPOperation
    /// The management group.
    public var group: SMPGroup
    /// The command within the group.
    public var command: UInt8
    /// The encoded CBOR payload.
    public var payload: [UInt8]
    /// Whether the session may resend the request after a timeout.
    public var retryPolicy: SMPRetryPolicy
    /// Per-request timing.
    public var options: SMPRequestOptions
    /// The pipeline's own name for the request, given back with its outcome.
    public var tag: Int

    /// Makes a request.
    public init(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: [UInt8], retryPolicy: SMPRetryPolicy,
        options: SMPRequestOptions = SMPRequestOptions(), tag: Int
    ) {
        self.operation = operation
        self.group = group
        self.command = command
        self.payload = payload
        self.retryPolicy = retryPolicy
        self.options = options
        self.tag = tag
    }
}
