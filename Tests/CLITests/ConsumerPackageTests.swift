import Foundation
import SMPTestSupport
import Testing

/// A package outside this one that depends on it with the README's exact path-form line, as a
/// new user's would, builds the README's quick start and upgrades `mcumgr-sim` with it.
///
/// The consumer package (in `.build/consumer-check/workspace`, beside a link to this checkout)
/// builds in a scratch directory of its own that persists between runs, `.build/consumer-check`
/// (SwiftPM cannot share object files across packages: every module is
/// compiled again under the consumer's own build directory and package identity, and our own
/// `.build` is locked by the test run). The first run therefore costs a debug build of the
/// library and its dependencies (SwiftNIO, swift-crypto, …: about eight minutes on two cores, the
/// cost the README states); every later run is an incremental build of a few seconds.
/// `MCUMGR_SKIP_CONSUMER_BUILD=1` skips it.
@Suite("A package that depends on swift-mcumgr as the README says")
struct ConsumerPackageTests {
    @Test(
        "the README's path-form dependency line resolves; the quick start builds and upgrades the simulator",
        .enabled(if: ProcessInfo.processInfo.environment["MCUMGR_SKIP_CONSUMER_BUILD"] != "1"),
        .timeLimit(.minutes(40)))
    func consumerBuildsAndRuns() async throws {
        let root = CLI.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let dependencyLine = try #require(
            readme.split(separator: "\n").first { $0.hasPrefix(".package(name: \"swift-mcumgr\", path: ") }.map(String.init),
            "the README has no path-form dependency line")
        let productsLine = try #require(
            readme.split(separator: "\n").first { $0.hasPrefix(".product(name: \"McuMgr\", package: \"swift-mcumgr\")") }.map(String.init))

        // The README's path is relative to the consumer: a folder with the checkout beside it. The
        // folder stays where it is between runs (under the consumer's scratch directory): SwiftPM
        // keys its build by the sources' paths, and a new folder each time rebuilt every module.
        let scratch = root.appendingPathComponent(".build/consumer-check")
        let folder = scratch.appendingPathComponent("workspace")
        let link = folder.appendingPathComponent("swift-mcumgr")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: link.path)) != root.path {
            try? FileManager.default.removeItem(at: link)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: root)
        }
        let consumer = folder.appendingPathComponent("consumer")
        let sources = consumer.appendingPathComponent("Sources/quickstart")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        try Self.write(Data("""
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "consumer",
                dependencies: [
                    \(dependencyLine)
                ],
                targets: [
                    .executableTarget(
                        name: "quickstart",
                        dependencies: [
                            \(productsLine)
                        ]
                    )
                ]
            )

            """.utf8), to: consumer.appendingPathComponent("Package.swift"))
        try Self.write(
            try Data(contentsOf: root.appendingPathComponent("Examples/library-quickstart/main.swift")), to: sources.appendingPathComponent("main.swift"))
        // The versions this package resolved, so that the consumer needs no network.
        try Self.write(try Data(contentsOf: root.appendingPathComponent("Package.resolved")), to: consumer.appendingPathComponent("Package.resolved"))

        let build = try await Subprocess.run(
            "/usr/bin/env", ["swift", "build", "--package-path", consumer.path, "--scratch-path", scratch.path, "--product", "quickstart"],
            environment: [:], timeout: .seconds(40 * 60))
        try #require(build.status == 0, "the consumer did not build:\n\(build)")
        let program = scratch.path + "/debug/quickstart"

        let image = root.appendingPathComponent("Examples/images/demo-app-1.1.0.bin").path
        try await withSimulator(["--boot-time", "200", "--reset-delay", "50"]) { sim in
            let run = try await CLI.run(program, [sim.address, image])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.hasPrefix("hello\n"), "\(run)")
            let listed = try await sim.mcumgr(["image", "list"])
            #expect(listed.stdout.contains("1.1.0"), "\(listed)")
        }
    }

    /// Writes `data` to `url` unless the file holds it already (an unchanged file keeps its time,
    /// so the build stays incremental).
    static func write(_ data: Data, to url: URL) throws {
        if (try? Data(contentsOf: url)) == data { return }
        try data.write(to: url)
    }
}
