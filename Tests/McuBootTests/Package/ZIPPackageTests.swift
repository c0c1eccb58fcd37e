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

    /// Writes the two images and a manifest in `layout` with Python's `zipfile` and `json`, as nRF
    /// Connect SDK's build does: a writer independent of ours (the manifest from a dict, not our text).
    static let pythonPackageWriter = """
        import json, sys, zipfile
        out, layout, *images = sys.argv[1:]
        names = ["app_update.bin", "net_core_app_update.bin"]
        entries, contents = [], []
        for index, path in enumerate(images):
            data = open(path, "rb").read()
            entry = {"board": ["nrf5340dk/nrf5340/cpuapp", "nrf5340dk/nrf5340/cpunet"][index], "soc": "nrf5340",
                     "load_address": [65536, 16779264][index], "type": "application", "size": len(data),
                     "file": names[index], "modtime": 1700000000, "version_MCUBOOT": "1.0.0+0"}
            if layout == "sysbuild":
                entry["image"] = index
            else:
                entry.update(image_index=str(index), slot_index_primary=str(2 * index + 1), slot_index_secondary=str(2 * index + 2))
            entries.append(entry)
            contents.append((names[index], data))
        manifest = {"files": entries, "name": "dfu_application", "time": 1700000000}
        if layout == "sysbuild":
            manifest["format-version"] = 1
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in contents:
                z.writestr(name, data)
            z.writestr("manifest.json", json.dumps(manifest, indent=4))
        """

    @Test("a package Python's zipfile and json wrote (as NCS's build writes it) reads in both layouts", arguments: ["legacy", "sysbuild"])
    func readsPythonWrittenPackage(layout: String) async throws {
        let app = try FirmwarePackageTests.image("1.0.0", size: 20_000), net = try FirmwarePackageTests.image("1.0.0", size: 9000, seed: 2)
        let directory = try Subprocess.temporaryDirectory("zip")
        let appPath = directory.appendingPathComponent("app.bin"), netPath = directory.appendingPathComponent("net.bin")
        try Data(app).write(to: appPath)
        try Data(net).write(to: netPath)
        let zip = directory.appendingPathComponent("dfu_application.zip").path
        _ = try await Subprocess.python(Self.pythonPackageWriter, arguments: [zip, layout, appPath.path, netPath.path])
        let package = try FirmwarePackage(zipFile: zip)
        #expect(package.images.map(\.image.bytes) == [app, net])
        #expect(package.images.map(\.index) == [0, 1])
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
