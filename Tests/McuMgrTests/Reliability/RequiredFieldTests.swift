import CBOR
import McuMgr
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// Errors are never read as success (reliability issue, defect 4): an empty `{}` answer to a
/// command whose answer has required fields is an invalid response naming the field, and a
/// malformed status is an invalid response. Before the fix, `image list`, `stat list` and
/// `fs download` took `{}` as an empty table, an empty list and a 0-byte file.
@Suite("Reliability: missing fields and malformed statuses are invalid responses", .virtualTime)
struct RequiredFieldTests {
    /// A command, and the field whose absence must be named.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let field: String
        let run: @Sendable (SMPClient) async throws -> Void
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "image list", field: "images") { _ = try await ImageManager(client: $0).list() },
        Case(name: "image test", field: "images") { _ = try await ImageManager(client: $0).test(hash: [UInt8](repeating: 1, count: 32)) },
        Case(name: "image slot info", field: "images") { _ = try await ImageManager(client: $0).slotInfo() },
        Case(name: "stat list", field: "stat_list") { _ = try await StatsManager(client: $0).list() },
        Case(name: "stat read", field: "fields") { _ = try await StatsManager(client: $0).read(group: "smp") },
        Case(name: "fs download", field: "off") { _ = try await FileSystemManager(client: $0).download(name: "/lfs1/f") },
        Case(name: "fs status", field: "len") { _ = try await FileSystemManager(client: $0).status(name: "/lfs1/f") },
        Case(name: "fs hashes", field: "types") { _ = try await FileSystemManager(client: $0).supportedHashes() },
        Case(name: "taskstat", field: "tasks") { _ = try await DefaultManager(client: $0).taskStats() },
        Case(name: "mpstat", field: "mpools") { _ = try await DefaultManager(client: $0).memoryPoolStats() },
        Case(name: "bootloader info", field: "bootloader") { _ = try await DefaultManager(client: $0).bootloaderInfo() },
        Case(name: "echo", field: "r") { _ = try await DefaultManager(client: $0).echo("x") },
        Case(name: "mcumgr params", field: "buf_size") { _ = try await DefaultManager(client: $0).parameters() },
        Case(name: "settings read", field: "val") { _ = try await ConfigManager(client: $0).read(name: "app/x") },
        Case(name: "shell exec", field: "o") { _ = try await ShellManager(client: $0).execute(["ls"]) },
        Case(name: "enum count", field: "count") { _ = try await EnumerationManager(client: $0).count() },
    ]

    @Test("an empty {} answer is an invalid response naming the missing field", arguments: cases)
    func emptyAnswer(_ command: Case) async throws {
        try await ScriptedDevice.with(script: { _, _ in .map([]) }) { client async throws in
            do {
                try await command.run(client)
                Issue.record("\(command.name): {} was taken as success")
            } catch {
                let message = "\(error)"
                #expect(message.contains("invalid response"), "\(command.name): \(message)")
                #expect(message.contains("\"\(command.field)\""), "\(command.name): \(message)")
            }
        }
    }

    @Test("an err whose group does not fit 16 bits is an invalid response, never success")
    func errGroupTooLarge() async throws {
        let answer: CBORValue = .textMap(["err": .textMap(["group": .unsigned(70_000), "rc": .negative(4)])])
        try await ScriptedDevice.with(script: { _, _ in answer }) { client async throws in
            let message = await invalidResponse { _ = try await ImageManager(client: client).list() }
            #expect(message?.contains("16-bit \"group\"") == true)
        }
    }

    @Test("a big integer rc is named as one")
    func bigIntegerRC() async throws {
        try await ScriptedDevice.with(script: { _, _ in .textMap(["rc": .unsigned(UInt64.max)]) }) { client async throws in
            let message = await invalidResponse { _ = try await StatsManager(client: client).list() }
            #expect(message?.contains("an integer too big for a status") == true)
        }
    }
}
