import CBOR
import SMP

/// File-system requests as the checks need them (group 8): status, download and upload of a
/// whole file following the device's offsets, each problem as a sentence.
struct FileTransfer: Sendable {
    /// The file's path on the device.
    let path: String
    /// The context requests go through.
    let context: ConformanceContext

    /// The largest file the checks read or write.
    static let sizeLimit = 64 * 1024

    /// The file's length, or the answer refusing it.
    func status() async throws(ConformanceAbort) -> Result<Int, FileProblem> {
        let request = ProbeRequest(.read, group: .fs, command: 1, value: .textMap(["name": .text(path)]))
        guard let answer = try await context.ask(request) else { return .failure(FileProblem("no answer to file status of \(path)")) }
        guard answer.isSuccess, let length = answer.value?["len"]?.intValue else { return .failure(FileProblem("file status of \(path) was answered \(answer.summary)", answer: answer)) }
        return .success(length)
    }

    /// The file's contents, chunk after chunk from the offsets the device answers.
    func download() async throws(ConformanceAbort) -> Result<[UInt8], FileProblem> {
        var contents: [UInt8] = []
        var total: Int?
        repeat {
            let request = ProbeRequest(.read, group: .fs, command: 0, value: .textMap(["name": .text(path), "off": .int(contents.count)]))
            guard let answer = try await context.ask(request) else { return .failure(FileProblem("no answer to reading \(path) at \(contents.count)")) }
            guard answer.isSuccess, let offset = answer.value?["off"]?.intValue, let data = answer.value?["data"]?.bytesValue else {
                return .failure(FileProblem("reading \(path) at \(contents.count) was answered \(answer.summary)", answer: answer))
            }
            if total == nil { total = answer.value?["len"]?.intValue }
            guard let length = total, offset == contents.count, length <= Self.sizeLimit else {
                return .failure(FileProblem("reading \(path) at \(contents.count) was answered off \(offset), len \(total.map(String.init) ?? "none")"))
            }
            guard !data.isEmpty || contents.count == length else { return .failure(FileProblem("reading \(path) stopped at \(contents.count) of \(length) bytes")) }
            contents += data
        } while contents.count < total ?? 0
        return .success(contents)
    }

    /// Writes `contents` as the whole file, `chunk` bytes a request, following the device's `off`.
    func upload(_ contents: [UInt8], chunk: Int) async throws(ConformanceAbort) -> FileProblem? {
        var offset = 0
        var rounds = 0
        repeat {
            rounds += 1
            let end = min(contents.count, offset + chunk)
            var fields: [(key: CBORValue, value: CBORValue)] = [
                (key: .text("name"), value: .text(path)), (key: .text("off"), value: .int(offset)),
                (key: .text("data"), value: .bytes(Array(contents[offset..<end]))),
            ]
            if offset == 0 { fields.append((key: .text("len"), value: .int(contents.count))) }
            let request = ProbeRequest(.write, group: .fs, command: 0, value: .map(fields))
            guard let answer = try await context.ask(request) else { return FileProblem("no answer to writing \(path) at \(offset)") }
            guard answer.isSuccess, let next = answer.value?["off"]?.intValue, next > offset || next == contents.count, next <= contents.count else {
                return FileProblem("writing \(path) at \(offset) was answered \(answer.summary)", answer: answer)
            }
            offset = next
        } while offset < contents.count && rounds < contents.count / max(chunk, 1) + 8
        return offset == contents.count ? nil : FileProblem("writing \(path) stopped at \(offset) of \(contents.count) bytes")
    }

    /// Data bytes per upload request that fit the largest request.
    func chunkSize() async throws(ConformanceAbort) -> Int {
        let overhead = SMPHeader.size + CBORWriter().encode(.textMap(["name": .text(path), "off": .unsigned(0xffff_ffff), "data": .bytes([]), "len": .unsigned(0xffff_ffff)])).count + 3
        return max(16, min(512, try await context.largestRequest() - 2 - overhead))
    }
}

/// Why a file request did not do what was asked.
struct FileProblem: Error, Sendable {
    /// What happened.
    let text: String
    /// The refusing answer, when there was one.
    let answer: ProbeAnswer?

    init(_ text: String, answer: ProbeAnswer? = nil) {
        self.text = text
        self.answer = answer
    }
}
