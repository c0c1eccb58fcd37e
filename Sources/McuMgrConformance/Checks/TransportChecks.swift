import CBOR
import SMP

// How requests travel: answers to pipelined requests in order or not, a request larger than one
// link unit, and a client that resends 30 % of its requests as if their answers were lost.

extension ConformanceCheck {
    /// The transport checks.
    static let transport: [ConformanceCheck] = [
        ConformanceCheck(
            "transport.pipelined-order", .transport, required: false,
            expects: "pipelined requests are all answered; the report says whether in order",
            rationale: """
                Zephyr handles one buffer at a time on its SMP work queue, so answers come in order, but the protocol \
                promises nothing: clients match by sequence number (ours, Nordic's iOS library, \
                McuMgrBleTransport+CBPeripheralDelegate.swift) or by offset (Nordic's pipelined upload, ImageManager.swift).
                """, body: pipelinedOrder),
        ConformanceCheck(
            "transport.reassembly", .transport,
            expects: "a request larger than one link unit, sent as several writes, is reassembled and answered",
            rationale: """
                Over BLE a packet up to buf_size goes as several ATT writes without response and the device \
                reassembles it by the SMP length (smp_reassembly.c); smpclient's BLE transport splits every packet into \
                MTU-sized writes (SMPBLETransport.send, smpclient/transport/ble.py), Nordic's libraries do with \
                reassembly on, and a serial packet spans many 127-byte console frames. Skipped where a packet is one unit (UDP).
                """, body: reassembly),
        ConformanceCheck(
            "transport.lossy-reads", .transport,
            expects: "reads sent again with the same bytes (30 % of them, as after a lost answer) are answered again, identically",
            rationale: """
                A client whose answer was lost resends the same request after its timeout (ours resends reads with the \
                same sequence number; Go mcumgr's retries, nmxact). Reads must be idempotent: the second answer is the \
                first one again.
                """, body: lossyReads),
        ConformanceCheck(
            "transport.lossy-writes", .transport, access: .writes,
            expects: "an upload where 30 % of the chunks are sent twice ends with the image intact (match, hash listed)",
            rationale: """
                The same lost answers during an upload: each chunk sent again is answered with the offset the device \
                expects and not written twice (img_mgmt_upload), so the upload completes with the file's SHA-256 \
                (match true) and the slot lists the image's hash. The last chunk is not sent twice: a finished upload \
                is forgotten and a continuation after it answered off 0 (smp-reference §7). The slot is erased after.
                """, body: lossyWrites),
    ]

    /// Whether the `index`th request of a lossy series is sent twice: 3 in every 10.
    static func isResent(_ index: Int) -> Bool { (index * 7) % 10 < 3 }

    private static func pipelinedOrder(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let count = min(try await context.buffers()?.count ?? 2, 4)
        guard count > 1 else { return .skipped("buf_count 1: the device holds one request at a time") }
        let requests = (0..<count).map { ProbeRequest.echo("pipelined \($0)") }
        let result = try await context.pipeline(requests, answers: answersEcho)
        let missing = result.answers.filter { $0 == nil }.count
        if missing > 0 { return .fail("\(missing) of \(count) pipelined requests got no answer") }
        if result.arrival == Array(0..<count) { return .pass("\(count) pipelined requests were answered in order") }
        return .pass("\(count) pipelined requests were answered out of order (\(result.arrival.map(String.init).joined(separator: ", ")))")
    }

    private static func reassembly(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let unit = await context.probe.transport.linkUnit
        let largest = try await context.largestRequest() - 2
        guard unit < largest else { return .skipped("a packet is one unit of this link (\(unit) bytes): nothing to reassemble") }
        guard let request = echoRequest(ofSize: largest, fill: "r") else { return .skipped("no echo fits \(largest) bytes") }
        guard let answer = try await context.ask(request, accepts: { answersEcho(request, $0) }) else {
            return .fail("no answer to a request of \(largest) bytes sent in \((largest + unit - 1) / unit) link units of \(unit)")
        }
        guard answer.isSuccess else { return .fail("a request of \(largest) bytes in link units of \(unit) was answered \(answer.summary)") }
        return .pass("a request of \(largest) bytes in \((largest + unit - 1) / unit) link units of \(unit) was reassembled and echoed")
    }

    /// The reads of the lossy series: echoes as reads, parameters, image state, bootloader info.
    private static func lossyReadSeries() -> [ProbeRequest] {
        (0..<20).map { index in
            switch index % 4 {
            case 0: return ProbeRequest.echo("lossy \(index)", operation: .read)
            case 1: return ProbeRequest(.read, group: .os, command: 6)
            case 2: return ProbeRequest(.read, group: .image, command: 0)
            default: return ProbeRequest(.read, group: .os, command: 8)
            }
        }
    }

    private static func lossyReads(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        var resent = 0
        for (index, series) in lossyReadSeries().enumerated() {
            let read = await context.numbered(series)
            guard let first = try await context.ask(read, keepsSequence: true) else { return .fail("no answer to read \(index)") }
            guard isResent(index) else { continue }
            resent += 1
            // The same bytes again, sequence number included, as a client resends after a lost answer.
            guard let second = try await context.send(read, keepsSequence: true) else {
                return .fail("read \(index) sent again (same bytes) got no answer")
            }
            guard second.payload.elementsEqual(first.payload) else {
                return .fail("read \(index) sent again was answered \(second.summary), not as the first time (\(first.summary))")
            }
        }
        return .pass("20 reads, \(resent) of them sent twice: every one answered, the second answers the same as the first")
    }

    private static func lossyWrites(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let (slot, refusal) = try await context.uploadSlot()
        if let refusal { return .skipped(refusal) }
        if let problem = try await context.erase(slot: slot) { return .fail(problem) }
        let uploader = try await smallUploader(context)
        let outcome = try await uploadResendingChunks(uploader, slot: slot, in: context)
        if let problem = try await context.erase(slot: slot) { return .fail("\(outcome.observed); then \(problem)") }
        return outcome
    }

    /// Uploads, sending 30 % of the chunks a second time after their answer; judges the result.
    private static func uploadResendingChunks(_ uploader: ImageUploader, slot: Int, in context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        var offset = 0
        var index = 0
        var resent = 0
        var last: ProbeAnswer?
        while offset < uploader.image.count, index < uploader.image.count / uploader.chunk * 2 + 8 {
            let request = await context.numbered(offset == 0 ? uploader.first : uploader.chunk(at: offset))
            guard let answer = try await context.ask(request, keepsSequence: true), let next = ImageUploader.offset(answer) else {
                return .fail("the chunk at \(offset) was not answered with an offset")
            }
            // Not the last chunk: a finished upload is forgotten, and a continuation is then answered off 0.
            if isResent(index), next < uploader.image.count {
                resent += 1
                guard let second = try await context.send(request, keepsSequence: true) else { return .fail("the chunk at \(offset) sent twice got no second answer") }
                guard let secondOffset = ImageUploader.offset(second), secondOffset == next else {
                    return .fail("the chunk at \(offset) sent twice was answered off \(next), then \(second.summary): the second copy was written again")
                }
            }
            guard next <= uploader.image.count else { return .fail("the chunk at \(offset) was answered off \(next), past the image") }
            (offset, last, index) = (next, answer, index + 1)
        }
        guard offset == uploader.image.count else { return .fail("the upload stopped at \(offset) of \(uploader.image.count) bytes") }
        if last?.value?["match"]?.boolValue == false { return .fail("the upload ended with match false: a chunk sent twice was written twice") }
        let table = try await context.imageTable() ?? []
        guard let row = ImageSlotRow.find(table, slot: slot), row.hash == ConformanceImage.hash(of: uploader.image) else {
            return .fail("after the upload with chunks sent twice slot \(slot) does not list the image's hash: \(ImageSlotRow.describe(table))")
        }
        return .pass("\(index) chunks, \(resent) of them sent twice: the image arrived intact")
    }
}
