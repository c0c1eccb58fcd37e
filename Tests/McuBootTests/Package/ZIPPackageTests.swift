import Foundation
import FirmwarePackageZIP
import McuBoot
import SMPTestSupport
import Testing

/// DFU packages read from zip files through ZIPFoundation, zip bombs and broken zips included.
@Suite("DFU package zips")
struct ZIPPackageTests {
    static func path(_ name: String) throws -> String {
        try Subprocess.temporaryDirectory("zip").appendingPathComponent(name).path
    }

    @Test("a deflated NCS package reads from its zip in both layouts", arguments: DFUPackageWriter.Layout.allCases)
    func reads(layout: DFUPackageWriter.Layout) throws {
        let app = try FirmwarePackageTests.image("1.0.0", size: 20_000), net = try FirmwarePackageTests.image("1.0.0", size: 9000, seed: 2)
        let path = try DFUPackageWriter.write(
            [.init(name: "app_update.bin", bytes: app, image: 0), .init(name: "net_core_app_update.bin", bytes: net, image: 1)],
            layout: layout, to: try Self.path("dfu_application.zip"))
        let package = try FirmwarePackage(zipFile: path)
        #expect(package.images.map(\.image.bytes) == [app, net])
    }

    @Test("a zip bomb stops at the bound: a declared size past it, or a header that lies about it")
    func zipBombs() async throws {
        // Bounds of 1 MiB and bombs of 3 MiB: the same rule as the 64 MiB default, at a cost a
        // debug build pays in moments (the CLI's test checks the default bound).
        var limits = FirmwarePackageLimits()
        limits.fileSize = 1 << 20
        let manifest = "{\"files\": [{\"file\": \"app.bin\", \"image_index\": \"0\"}]}"
        let honest = try Self.path("honest.zip"), lying = try Self.path("lying.zip")
        try await OwnThread.run {
            try DFUPackageWriter.bomb(name: "app.bin", size: 3 << 20, declaredSize: 3 << 20, manifest: manifest, to: honest)
            try DFUPackageWriter.bomb(name: "app.bin", size: 3 << 20, declaredSize: 1000, manifest: manifest, to: lying)
        }
        #expect(throws: FirmwarePackageError.tooLarge("app.bin", limit: 1 << 20)) { try FirmwarePackage(zipFile: honest, limits: limits) }
        // The header says 1000 bytes: inflating stops after them, not at the bound.
        #expect(throws: FirmwarePackageError.tooLarge("app.bin", limit: 1000)) { try FirmwarePackage(zipFile: lying, limits: limits) }
    }

    @Test("not a zip, a truncated zip and a corrupted entry are archive errors")
    func broken() throws {
        let notZip = try Self.path("not.zip")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notZip))
        do {
            _ = try FirmwarePackage(zipFile: notZip)
            Issue.record("a text file read as a zip")
        } catch {
            guard case .archive = error else {
                Issue.record("\(error)")
                return
            }
        }
        let good = try DFUPackageWriter.write(
            [.init(name: "app.bin", bytes: try FirmwarePackageTests.image("1.0.0", size: 5000))], layout: .legacy, to: try Self.path("good.zip"))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: good)))
        let truncated = try Self.path("truncated.zip")
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: truncated))
        #expect(throws: FirmwarePackageError.self) { try FirmwarePackage(zipFile: truncated) }
        // Flip bytes in the middle of the deflated image: the inflate or the CRC fails.
        var corrupt = bytes
        for offset in (bytes.count / 3)..<(bytes.count / 3 + 16) { corrupt[offset] ^= 0x5a }
        let corrupted = try Self.path("corrupt.zip")
        try Data(corrupt).write(to: URL(fileURLWithPath: corrupted))
        #expect(throws: FirmwarePackageError.self) { try FirmwarePackage(zipFile: corrupted) }
    }
}
