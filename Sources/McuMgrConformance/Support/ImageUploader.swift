import CBOR
import Crypto
import SMP

/// Uploads an image to image 0 a chunk at a time, as the checks need it: the first chunk with
/// `len` and `sha`, chunks at any offset, following the device's `off`.
struct ImageUploader: Sendable {
    /// The image file.
    let image: [UInt8]
    /// SHA-256 of the whole file (the upload's `sha`).
    let sha: [UInt8]
    /// Data bytes per chunk.
    let chunk: Int

    /// An uploader of `image` with chunks that fit the largest request (room for an answer one
    /// byte longer kept), at most `chunkLimit` bytes of data each.
    init(_ image: [UInt8], largestRequest: Int, chunkLimit: Int) {
        self.image = image
        sha = Array(SHA256.hash(data: image))
        let overhead = SMPHeader.size + CBORWriter().encode(Self.firstValue(image: image, sha: sha, data: [])).count + 3
        chunk = max(32, min(chunkLimit, largestRequest - 2 - overhead))
    }

    private static func firstValue(image: [UInt8], sha: [UInt8], data: [UInt8]) -> CBORValue {
        .textMap(["image": .unsigned(0), "len": .int(image.count), "off": .unsigned(0), "sha": .bytes(sha), "data": .bytes(data), "upgrade": .bool(false)])
    }

    /// The first chunk: offset 0, `len`, `sha`, `image` 0, `upgrade` false.
    var first: ProbeRequest {
        ProbeRequest(.write, group: .image, command: 1, value: Self.firstValue(image: image, sha: sha, data: Array(image.prefix(chunk))))
    }

    /// A chunk at `offset` (`{off, data}`), the image's bytes from there.
    func chunk(at offset: Int) -> ProbeRequest {
        let end = min(image.count, offset + chunk)
        let data = offset < end ? Array(image[offset..<end]) : []
        return ProbeRequest(.write, group: .image, command: 1, value: .textMap(["off": .int(offset), "data": .bytes(data)]))
    }

    /// The offset an upload answer gives, when it is a success.
    static func offset(_ answer: ProbeAnswer?) -> Int? {
        guard let answer, answer.isSuccess else { return nil }
        return answer.value?["off"]?.intValue
    }

    /// Sends `request` (resent after a timeout: a chunk sent twice is answered with the offset
    /// expected) and returns the device's offset, or what went wrong.
    func send(_ request: ProbeRequest, in context: ConformanceContext, what: String) async throws(ConformanceAbort) -> Result<Int, UploadProblem> {
        guard let answer = try await context.ask(request) else { return .failure(UploadProblem("no answer to \(what)")) }
        guard let offset = Self.offset(answer) else { return .failure(UploadProblem("\(what) was answered \(answer.summary)")) }
        return .success(offset)
    }

    /// Sends chunks from `offset`, each at the offset the device answered, until the device has
    /// the whole image; returns the last answer.
    func finish(from offset: Int, in context: ConformanceContext) async throws(ConformanceAbort) -> Result<ProbeAnswer, UploadProblem> {
        var offset = offset
        var rounds = 0
        while rounds < image.count / max(chunk, 1) * 2 + 8 {
            rounds += 1
            let request = offset == 0 ? first : chunk(at: offset)
            guard let answer = try await context.ask(request) else { return .failure(UploadProblem("no answer to the chunk at offset \(offset)")) }
            guard let next = Self.offset(answer) else { return .failure(UploadProblem("the chunk at offset \(offset) was answered \(answer.summary)")) }
            guard next <= image.count else { return .failure(UploadProblem("the chunk at offset \(offset) was answered off \(next), past the image's \(image.count) bytes")) }
            if next == image.count { return .success(answer) }
            offset = next
        }
        return .failure(UploadProblem("the upload made no progress (last off \(offset))"))
    }
}

/// Why an upload stopped.
struct UploadProblem: Error, Sendable {
    /// What happened.
    let text: String
    init(_ text: String) { self.text = text }
}
