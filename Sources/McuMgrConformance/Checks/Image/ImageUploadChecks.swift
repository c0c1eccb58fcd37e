import CBOR
import SMP

// Uploads into the unused slot of image 0, each erased again: a chunk after a gap, a chunk sent
// again, a first chunk that resumes by sha, and a whole upload listed with its hash.

extension ConformanceCheck {
    /// The upload checks.
    static let imageUpload: [ConformanceCheck] = [
        ConformanceCheck(
            "image.upload-gap", .image, access: .writes,
            expects: "a chunk past the device's offset (a gap) is answered with success and the offset expected, and the upload goes on from it",
            rationale: """
                A continuation whose off is not the device's is answered with success and the expected off \
                (img_mgmt_upload; smp-reference §7). Every client continues from the answered off: smpclient's \
                upload() and mcumgr-toolkit's image_upload send the next chunk at it (smpclient/__init__.py, client.rs), \
                Go mcumgr resends the chunk whose offset comes back again (ImageUploadIntTracker, nmxact/xact/image.go), \
                Nordic's pipelined upload keeps the highest off answered (ImageManager.swift).
                """, body: uploadGap),
        ConformanceCheck(
            "image.upload-resent-chunk", .image, access: .writes,
            expects: "a chunk sent again at an offset already written is answered with the offset expected and not written twice",
            rationale: """
                A client that lost an answer resends the chunk (our session after a timeout; Go mcumgr's missed chunks, \
                nmxact/xact/image.go); the device answers the off it expects and the image stays intact. A device that \
                writes it again shifts the rest of the image: the hash check fails, or worse, does not run.
                """, body: uploadResentChunk),
        ConformanceCheck(
            "image.upload-sha-resume", .image, required: false, access: .writes,
            expects: "a first chunk with the sha of the upload in progress is answered with the offset reached (resume)",
            rationale: """
                With the same sha the device answers the offset it holds instead of starting over (img_mgmt_upload's \
                resume check). Our upload engine sends chunk 0 alone to learn it after a reconnect; smpclient and \
                mcumgr-toolkit always start at off 0 with the whole file's SHA-256 and continue from the answer, so a \
                resuming device saves them the bytes already sent.
                """, body: uploadShaResume),
        ConformanceCheck(
            "image.upload-complete", .image, access: .writes,
            expects: "a whole upload ends at off == len (match true when given), and the slot lists the image's hash, bootable, no flags",
            rationale: """
                The upload ends when off reaches len; "match" compares the file's SHA-256 with sha (smpclient and \
                mcumgr-toolkit fail when it is false). The slot then lists the MCUboot hash TLV, which clients test and \
                confirm by. With --image this is the image the swap checks use, else a small image made for the run.
                """, body: uploadComplete),
    ]

    /// The uploader for the checks that need no bootable image: the run's own small image.
    static func smallUploader(_ context: ConformanceContext) async throws(ConformanceAbort) -> ImageUploader {
        ImageUploader(ConformanceImage.make(), largestRequest: try await context.largestRequest(), chunkLimit: 512)
    }

    /// Erases the upload slot and sends the first `chunks` chunks; the uploader, the slot and the
    /// offset reached, or why not (a skip or a failure).
    private static func startUpload(_ context: ConformanceContext, chunks: Int) async throws(ConformanceAbort) -> Result<(ImageUploader, Int, Int), CheckStop> {
        let (slot, refusal) = try await context.uploadSlot()
        if let refusal { return .failure(.skip(refusal)) }
        if let problem = try await context.erase(slot: slot) { return .failure(.fail(problem)) }
        let uploader = try await smallUploader(context)
        var offset = 0
        for index in 0..<chunks {
            let request = index == 0 ? uploader.first : uploader.chunk(at: offset)
            switch try await uploader.send(request, in: context, what: "the chunk at offset \(offset)") {
            case .success(let next): offset = next
            case .failure(let problem): return .failure(.fail(problem.text))
            }
        }
        return .success((uploader, slot, offset))
    }

    /// Runs `body` on an upload of two chunks, then erases the slot whatever happened.
    private static func withStartedUpload(
        _ context: ConformanceContext,
        _ body: (ImageUploader, Int) async throws(ConformanceAbort) -> ConformanceOutcome
    ) async throws(ConformanceAbort) -> ConformanceOutcome {
        let started: (ImageUploader, Int, Int)
        switch try await startUpload(context, chunks: 2) {
        case .success(let value): started = value
        case .failure(let why): return why.outcome
        }
        let outcome = try await body(started.0, started.2)
        if let problem = try await context.erase(slot: started.1) { return .fail("\(outcome.observed); then \(problem)") }
        return outcome
    }

    private static func uploadGap(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        try await withStartedUpload(context) { (uploader: ImageUploader, offset: Int) async throws(ConformanceAbort) -> ConformanceOutcome in
            let gap = offset + uploader.chunk
            guard let answer = try await context.send(uploader.chunk(at: gap)) else { return .fail("no answer to a chunk at \(gap) (a gap after \(offset))") }
            guard let answered = ImageUploader.offset(answer) else {
                return .fail("a chunk at \(gap), past the device's offset \(offset), was answered \(answer.summary), not the offset expected")
            }
            guard answered == offset else {
                return .fail("a chunk at \(gap), past the device's offset \(offset), was answered off \(answered), not the offset expected (\(offset))")
            }
            if let problem = try await goesOn(uploader, from: answered, in: context) { return .fail(problem) }
            return .pass("a chunk at \(gap) was answered off \(offset); the upload went on from there")
        }
    }

    /// Sends the chunk at `offset`; what is wrong unless it is answered with the next offset.
    private static func goesOn(_ uploader: ImageUploader, from offset: Int, in context: ConformanceContext) async throws(ConformanceAbort) -> String? {
        switch try await uploader.send(uploader.chunk(at: offset), in: context, what: "the chunk at \(offset)") {
        case .success(let next) where next == offset + uploader.chunk: return nil
        case .success(let next): return "the chunk at \(offset) was answered off \(next), not \(offset + uploader.chunk)"
        case .failure(let problem): return problem.text
        }
    }

    private static func uploadResentChunk(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        try await withStartedUpload(context) { (uploader: ImageUploader, offset: Int) async throws(ConformanceAbort) -> ConformanceOutcome in
            let previous = offset - uploader.chunk
            guard let answer = try await context.send(uploader.chunk(at: previous)) else { return .fail("no answer to the chunk at \(previous) sent again") }
            guard let answered = ImageUploader.offset(answer) else { return .fail("the chunk at \(previous) sent again was answered \(answer.summary)") }
            guard answered == offset else {
                return .fail("the chunk at \(previous) sent again was written again (off \(offset) → \(answered)): it must be answered with the offset expected (\(offset)), not written twice")
            }
            if let problem = try await goesOn(uploader, from: offset, in: context) { return .fail("after the resent chunk, \(problem)") }
            return .pass("the chunk at \(previous) sent again was answered off \(offset); the next chunk went on")
        }
    }

    private static func uploadShaResume(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        try await withStartedUpload(context) { (uploader: ImageUploader, offset: Int) async throws(ConformanceAbort) -> ConformanceOutcome in
            guard let answer = try await context.send(uploader.first) else { return .fail("no answer to the first chunk sent again with the same sha") }
            guard let answered = ImageUploader.offset(answer) else { return .fail("the first chunk sent again with the same sha was answered \(answer.summary)") }
            if answered == offset { return .pass("the first chunk with the same sha was answered off \(offset): the upload resumed") }
            if answered == uploader.chunk {
                return .fail("the first chunk with the same sha started the upload over (off \(answered)) instead of resuming at \(offset)")
            }
            return .fail("the first chunk with the same sha was answered off \(answered), neither the offset reached (\(offset)) nor a new start")
        }
    }

    private static func uploadComplete(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let (slot, refusal) = try await context.uploadSlot()
        if let refusal { return .skipped(refusal) }
        let image = context.options.bootableImage ?? ConformanceImage.make()
        guard let hash = ConformanceImage.hash(of: image) else { return .skipped("--image is not an MCUboot image") }
        if let problem = try await context.erase(slot: slot) { return .fail(problem) }
        let limit = context.options.bootableImage == nil ? 512 : Int.max
        let uploader = ImageUploader(image, largestRequest: try await context.largestRequest(), chunkLimit: limit)
        let last: ProbeAnswer
        switch try await uploader.finish(from: 0, in: context) {
        case .success(let answer): last = answer
        case .failure(let problem):
            _ = try await context.erase(slot: slot)
            return .fail(problem.text)
        }
        if last.value?["match"]?.boolValue == false {
            _ = try await context.erase(slot: slot)
            return .fail("the upload ended with match false: the device's image does not have the file's SHA-256")
        }
        let table = try await context.imageTable() ?? []
        guard let row = ImageSlotRow.find(table, slot: slot), row.hash == hash else {
            _ = try await context.erase(slot: slot)
            return .fail("after the upload slot \(slot) does not list the image's hash: \(ImageSlotRow.describe(table))")
        }
        guard row.bootable, !row.pending, !row.confirmed, !row.active, !row.permanent else {
            _ = try await context.erase(slot: slot)
            return .fail("the uploaded image is listed \(row), not bootable without flags")
        }
        context.setUploadedImage(image)
        let match = last.value?["match"]?.boolValue == true ? ", match true" : ""
        return .pass("\(image.count) bytes in \(uploader.chunk)-byte chunks ended at off \(image.count)\(match); slot \(slot) lists the hash")
    }
}
