// products: McuMgr SMP SMPTestSupport CBOR
import CBOR
import FuzzSupport
import McuMgr
import SMP
import SMPTestSupport

/// The upload engine against a device that answers with the fuzz input: each request (the
/// parameters read, then every chunk) gets the next piece of the input as its answer's payload
/// in a matching header, and once the input is spent nothing more (timeouts). Whatever the
/// answers, the upload ends — succeeded, failed with a typed error, or stalled — and, on virtual
/// time, well within libFuzzer's one-second limit for a hang.
///
/// Input: a byte for the pipeline depth (1–4), a byte for the packet size, then the answers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUploadAnswers(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let depth = Int(input.byte() % 4) + 1
    let packetSize = 96 + Int(input.byte())
    var answers: [[UInt8]] = []
    while !input.isAtEnd, answers.count < 256 { answers.append(input.piece()) }
    let script = answers
    VirtualRuntime().runOnCallingThread { clock in
        let transport = LoopbackTransport(maximumPacketSize: packetSize)
        _ = await ScriptedDevice.started(transport, clock: clock) { request, arrival in
            guard arrival < script.count else { return .ignore }
            var header = request.header
            header.operation = request.header.operation.response
            header.length = UInt16(truncatingIfNeeded: script[arrival].count)
            return .raw(header.bytes + script[arrival])
        }
        let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(1), retries: 1), clock: clock)
        let data = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
        let outcome: Result<UploadAcknowledgement, UploadError>
        do throws(UploadError) {
            outcome = .success(try await ImageManager(client: client).upload(data: data, configuration: UploadConfiguration(pipelineDepth: depth)))
        } catch {
            outcome = .failure(error)
        }
        if case .success(let ack) = outcome {
            precondition(ack.nextOffset == data.count, "an upload succeeded short of its end")
        }
        _ = "\(outcome)"
        await client.close()
    }
    return 0
}
