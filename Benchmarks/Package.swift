// swift-tools-version: 6.1
// Benchmarks for swift-mcumgr, as their own package so that the main package's build and tests
// never depend on them.
//
//   make bench          everything below, results in Benchmarks/results/ (see Benchmarks/README.md)
//   swift package --allow-writing-to-package-directory benchmark
//                       micro-benchmarks (ordo-one `benchmark`): time, throughput, mallocs
//   swift run -c release upload-throughput --help
//                       upload bytes/s over real sockets and link models, beside each link's
//                       limit and beside the other SMP tools
//   swift run -c release fleet-upgrade | hci-bumble-throughput
//                       the fleet; our HCI host over bumble's virtual link

import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// Products of the main package (swift-mcumgr), by name.
func mcumgr(_ products: String...) -> [Target.Dependency] {
    products.map { .product(name: $0, package: "swift-mcumgr") }
}

let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
    name: "swift-mcumgr-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-mcumgr", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // On Linux only the malloc interposer trait: the default traits pull a runtime
        // interposer that is not available here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Micro-benchmarks: one chunk request encoded, one response decoded, one session round
        // trip, the packet assembler on serial frames and BLE notifications, McuBoot parse + hash.
        .executableTarget(
            name: "SMPMicroBenchmarks",
            dependencies: mcumgr("SMP", "CBOR", "McuMgr", "McuBoot", "SMPSerial", "SMPTestSupport")
                + [.product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/SMPMicroBenchmarks",
            swiftSettings: strict,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        // Upload throughput by link and pipeline depth, side by side with smpmgr and
        // mcumgr-toolkit; Markdown, CSV and a plot under results/.
        .executableTarget(
            name: "upload-throughput",
            dependencies: mcumgr("McuMgr", "McuBoot", "SMP", "SMPUDP", "SMPSerial", "SMPBLE", "GATT", "SMPSimulator", "SMPTestSupport")
                + [argumentParser, logging],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "fleet-upgrade",
            dependencies: mcumgr("McuMgrFleet", "McuMgrTools", "McuMgrConnection", "McuMgr", "McuBoot", "SMP", "SMPUDP", "SMPTestSupport")
                + [argumentParser, logging],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "hci-bumble-throughput",
            dependencies: mcumgr("McuMgr", "McuBoot", "McuMgrConnection", "SMP", "SMPTestSupport") + [argumentParser, logging],
            swiftSettings: strict
        ),
    ]
)
