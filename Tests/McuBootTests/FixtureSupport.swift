import Foundation
import Glibc
import Testing

import McuBoot

/// The committed fixtures of Fixtures/ (made by Fixtures/make-fixtures.sh) and helpers around them.
enum Fixtures {
    /// The Fixtures directory beside this file.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    /// The package root (for .venv/bin/imgtool).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// One image as recorded by make-fixtures.sh.
    struct Entry: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let image: String
        let payload: String
        let key: String?
        let publicKey: String?
        let imgtoolArguments: [String]
        /// `imgtool verify`'s "Image version", e.g. "1.2.3+0".
        let version: String
        /// `imgtool verify`'s "Image digest" (hex).
        let hash: String
        let dumpinfo: DumpInfo

        var testDescription: String { name }
    }

    /// The parts of `imgtool dumpinfo -f json` the tests compare with.
    struct DumpInfo: Decodable, Sendable {
        struct Header: Decodable, Sendable {
            let magic: UInt32
            let load_addr: UInt32
            let hdr_size: UInt16
            let protected_tlv_size: UInt16
            let img_size: UInt32
            let flags: UInt32
            let version: String
        }
        struct TLVInfo: Decodable, Sendable {
            let magic: UInt16?
            let tlv_tot: UInt16?
        }
        struct TLV: Decodable, Sendable {
            let type: UInt16
            let type_name: String
            let len: Int
            let data: String
        }
        struct TLVArea: Decodable, Sendable {
            let tlv_hdr_prot: TLVInfo
            let tlvs_prot: [TLV]
            let tlv_hdr: TLVInfo
            let tlvs: [TLV]
        }
        let header: Header
        let tlv_area: TLVArea
    }

    private struct Document: Decodable {
        let imgtool: String
        let images: [Entry]
    }

    /// Every recorded image.
    static let entries: [Entry] = {
        do {
            let data = try Data(contentsOf: directory.appendingPathComponent("expectations.json"))
            return try JSONDecoder().decode(Document.self, from: data).images
        } catch {
            fatalError("cannot read Fixtures/expectations.json (run Fixtures/make-fixtures.sh): \(error)")
        }
    }()

    /// The recorded image called `name`.
    static func entry(_ name: String) throws -> Entry {
        try #require(entries.first { $0.name == name }, "no fixture \(name)")
    }

    /// The bytes of a file under Fixtures/.
    static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(relativePath)))
    }

    /// The text of a file under Fixtures/.
    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// The parsed image of fixture `name`.
    static func image(_ name: String) throws -> McuBootImage {
        try McuBootImage(bytes: bytes(entry(name).image))
    }
}

/// Bytes from lower- or upper-case hex (test helper).
func bytes(hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
        out.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return out
}

/// Calls `body` and returns the McuBootError it throws, or nil when it returns normally
/// (any other error is recorded as a test issue).
func mcuBootError(_ body: () throws -> Void) -> McuBootError? {
    do {
        try body()
        return nil
    } catch let error as McuBootError {
        return error
    } catch {
        Issue.record("expected a McuBootError, got \(error)")
        return nil
    }
}

/// The error parsing `bytes` throws, or nil when the bytes parse.
func parseError(_ bytes: [UInt8]) -> McuBootError? {
    do throws(McuBootError) {
        _ = try McuBootImage(bytes: bytes)
        return nil
    } catch {
        return error
    }
}

/// A small deterministic generator (SplitMix64) so that randomised tests reproduce.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// Runs the project's imgtool (.venv/bin/imgtool) for the tests that compare with it.
enum Imgtool {
    static let path = Fixtures.packageRoot.appendingPathComponent(".venv/bin/imgtool").path

    /// Whether the venv's imgtool is there; when it is not, records an issue telling how to get it.
    static func available() -> Bool {
        if FileManager.default.isExecutableFile(atPath: path) { return true }
        Issue.record("imgtool not found at \(path): run `make test` (or scripts/bootstrap.sh) to create the Python venv")
        return false
    }

    /// `imgtool create <arguments> payload out` in a fresh temporary directory; returns the image bytes.
    static func create(payload: [UInt8], arguments: [String]) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mcuboot-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("payload.bin")
        let output = directory.appendingPathComponent("image.bin")
        try Data(payload).write(to: input)
        try run(["create"] + arguments + [input.path, output.path])
        return Array(try Data(contentsOf: output))
    }

    /// `imgtool verify [-k key] image`: true when imgtool accepts the image.
    static func verify(image: [UInt8], keyPath: String?) throws -> Bool {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mcuboot-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("image.bin")
        try Data(image).write(to: file)
        let keyArguments = keyPath.map { ["-k", $0] } ?? []
        return (try? run(["verify"] + keyArguments + [file.path])) != nil
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let (status, output) = try ChildProcess.run(path, arguments, mergingErrors: true)
        let text = String(decoding: output, as: UTF8.self)
        guard status == 0 else {
            throw Failure(description: "imgtool \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }
}

/// Runs a program to its end with posix_spawn and waitpid, its output in a temporary file.
///
/// Not Foundation's `Process`: its pipe reads trap on EINTR, and many concurrent launches from
/// parallel tests have crashed it; this is the plain POSIX way, retried on EINTR.
enum ChildProcess {
    struct SpawnError: Error, CustomStringConvertible {
        let description: String
    }

    /// The exit status and standard output (with standard error when `mergingErrors`) of
    /// `executable arguments`; `executable` is looked up in `PATH` when it has no slash.
    static func run(_ executable: String, _ arguments: [String], mergingErrors: Bool = false) throws -> (status: Int32, output: Data) {
        let outPath = FileManager.default.temporaryDirectory.appendingPathComponent("mcuboot-tests-out-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if mergingErrors {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw SpawnError(description: "waitpid for \(executable) failed: \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED / WEXITSTATUS; a signal gives 128 + its number.
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitStatus, try Data(contentsOf: URL(fileURLWithPath: outPath)))
    }
}

/// The first offset where `a` and `b` differ, or the shorter length when one is a prefix (for messages).
func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
}
