#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc
import POSIXIO
import SMP

/// Why a file download stopped.
public enum FileDownloadError: Error, Sendable, CustomStringConvertible {
    /// The session failed or the device answered with an error (or with an answer that does not
    /// fit the download: no `len`, data past `len`, no data before the end).
    case smp(SMPError)
    /// The device claims a file longer than the download allows.
    case tooLarge(name: String, length: Int, limit: Int)
    /// The destination cannot be written; nothing was asked of the device.
    case destination(path: String, reason: String)

    /// One line naming the problem.
    public var description: String {
        switch self {
        case .smp(let error): return error.description
        case .tooLarge(let name, let length, let limit):
            return "the device says \(name) is \(length) bytes, more than the \(limit)-byte download limit; raise the limit if the file is really that large"
        case .destination(let path, let reason): return "cannot write \(path): \(reason)"
        }
    }
}

extension FileSystemManager {
    /// The longest file a download accepts unless told otherwise: 64 MiB.
    public static let defaultMaximumDownloadLength = 64 << 20

    /// Downloads a whole file into memory. The device's first answer must give the length
    /// (`len`), which must not exceed `maximumLength`; data past it, an answer without data
    /// before the end, or an answer for another offset are invalid responses.
    public func download(
        name: String, maximumLength: Int = FileSystemManager.defaultMaximumDownloadLength,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws(FileDownloadError) -> [UInt8] {
        var bytes: [UInt8] = []
        try await download(name: name, maximumLength: maximumLength, progress: progress) { chunk in bytes += chunk }
        return bytes
    }

    /// Downloads a whole file to `destination`, streaming it to a temporary file beside it that
    /// is renamed when complete: memory stays flat, and a failure leaves no partial file. An
    /// unwritable destination fails before the first request. Returns the file's length.
    @discardableResult
    public func download(
        name: String, to destination: URL, maximumLength: Int = FileSystemManager.defaultMaximumDownloadLength,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws(FileDownloadError) -> Int {
        let partial = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).partial")
        let fd = open(partial.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .destination(path: destination.path, reason: Self.whyUnwritable(destination))
        }
        var length = 0
        var isOpen = true
        do throws(FileDownloadError) {
            try await download(name: name, maximumLength: maximumLength, progress: progress) { (chunk) throws(FileDownloadError) in
                do throws(SystemCallError) {
                    try BlockingWrite.all(chunk, to: fd)
                } catch {
                    throw .destination(path: destination.path, reason: error.reason)
                }
                length += chunk.count
            }
            isOpen = false
            if Glibc.close(fd) != 0 || rename(partial.path, destination.path) != 0 {
                throw .destination(path: destination.path, reason: String(cString: strerror(errno)))
            }
        } catch {
            if isOpen { Glibc.close(fd) }
            unlink(partial.path)
            throw error
        }
        return length
    }

    /// The download loop: asks for each chunk at the offset reached and hands its data to `write`.
    private func download(
        name: String, maximumLength: Int, progress: (@Sendable (Int, Int) -> Void)?,
        write: ([UInt8]) throws(FileDownloadError) -> Void
    ) async throws(FileDownloadError) {
        func invalid(_ why: String) -> FileDownloadError { .smp(.invalidResponse("fs download of \(name): \(why)")) }
        var offset = 0
        var total: Int?
        repeat {
            if Task.isCancelled { throw .smp(.cancelled) }
            let chunk: FileDownloadResponse
            do {
                chunk = try await client.send(FileDownloadRequest(name: name, offset: offset))
            } catch {
                throw .smp(error)
            }
            guard chunk.offset == offset else {
                throw invalid("asked for offset \(offset), the device answered for \(chunk.offset)")
            }
            if total == nil {
                guard let length = chunk.length else { throw invalid("the first answer has no \"len\"") }
                guard length >= 0 else { throw invalid("the device reports a length of \(length)") }
                guard length <= maximumLength else { throw .tooLarge(name: name, length: length, limit: maximumLength) }
                total = length
            }
            let length = total ?? 0
            guard offset + chunk.data.count <= length else {
                throw invalid("the device sent \(offset + chunk.data.count) bytes of a \(length)-byte file")
            }
            guard !chunk.data.isEmpty || length == 0 else {
                throw invalid("the device sent no data at offset \(offset) of \(length)")
            }
            try write(chunk.data)
            offset += chunk.data.count
            progress?(offset, length)
        } while offset < (total ?? 0)
    }

    private static func whyUnwritable(_ destination: URL) -> String {
        let directory = destination.deletingLastPathComponent().path
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory else {
            return "the folder \(directory) does not exist"
        }
        return "the folder \(directory) is not writable"
    }
}
