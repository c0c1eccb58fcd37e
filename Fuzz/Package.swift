// swift-tools-version: 6.1
// Coverage-guided fuzz targets (libFuzzer, through the Swift toolchain's -sanitize=fuzzer) for the
// decoders of swift-mcumgr that see outside bytes. Its own package, like Benchmarks/, so that the
// main build never sees the fuzzer flags. Build and run through the top-level Makefile:
// `make fuzz`, `make fuzz-smoke` (see README, "Reliability").
//
// Adding a target is one file: Sources/fuzz-NAME/Fuzz.swift, whose first line names the products it
// needs (`// products: SMP CBOR`, or `swift-log/Logging` for another package's product); the
// targets below and the Makefile's list are read from the Sources folder.

import Foundation
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny")]

/// Each `Sources/fuzz-*` folder is an executable whose `LLVMFuzzerTestOneInput` libFuzzer calls.
let fuzzTargets: [Target] = {
    let sources = URL(fileURLWithPath: Context.packageDirectory).appendingPathComponent("Sources")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
    return names.filter { $0.hasPrefix("fuzz-") }.sorted().map { name in
        let file = sources.appendingPathComponent(name).appendingPathComponent("Fuzz.swift")
        let firstLine = (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n").first.map(String.init) ?? ""
        let marker = "// products:"
        let products = firstLine.hasPrefix(marker) ? firstLine.dropFirst(marker.count).split(separator: " ").map(String.init) : []
        let dependencies: [Target.Dependency] = products.map { entry in
            let parts = entry.split(separator: "/").map(String.init)
            return parts.count == 2 ? .product(name: parts[1], package: parts[0]) : .product(name: entry, package: "swift-mcumgr")
        }
        return .executableTarget(
            name: name, dependencies: ["FuzzSupport"] + dependencies, path: "Sources/\(name)",
            // libFuzzer supplies main().
            swiftSettings: strict + [.unsafeFlags(["-parse-as-library"])]
        )
    }
}()

let package = Package(
    name: "swift-mcumgr-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-mcumgr", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Reading a fuzz input. (Targets that run async code drive a VirtualRuntime of SMPTestSupport
        // on libFuzzer's thread: VirtualRuntime.runOnCallingThread.)
        .target(name: "FuzzSupport", swiftSettings: strict),
    ] + fuzzTargets
)
