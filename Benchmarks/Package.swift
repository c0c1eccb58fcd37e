// swift-tools-version: 6.1
// Benchmarks for swift-mcumgr, as their own package so that the main package's build and tests
// never depend on them. Run: `swift run -c release upload-throughput`, `swift run -c release
// serial-throughput`, `swift run -c release ble-throughput`, `swift run -c release fleet-upgrade`.

import PackageDescription

let package = Package(
    name: "swift-mcumgr-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-mcumgr", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "upload-throughput",
            dependencies: [
                .product(name: "McuMgr", package: "swift-mcumgr"),
                .product(name: "McuBoot", package: "swift-mcumgr"),
                .product(name: "SMP", package: "swift-mcumgr"),
                .product(name: "SMPSimulator", package: "swift-mcumgr"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "serial-throughput",
            dependencies: [
                .product(name: "McuMgr", package: "swift-mcumgr"),
                .product(name: "McuBoot", package: "swift-mcumgr"),
                .product(name: "SMP", package: "swift-mcumgr"),
                .product(name: "SMPSerial", package: "swift-mcumgr"),
                .product(name: "SMPSimulator", package: "swift-mcumgr"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "ble-throughput",
            dependencies: [
                .product(name: "McuMgr", package: "swift-mcumgr"),
                .product(name: "McuBoot", package: "swift-mcumgr"),
                .product(name: "SMP", package: "swift-mcumgr"),
                .product(name: "GATT", package: "swift-mcumgr"),
                .product(name: "SMPBLE", package: "swift-mcumgr"),
                .product(name: "SMPSimulator", package: "swift-mcumgr"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "fleet-upgrade",
            dependencies: [
                .product(name: "McuMgrFleet", package: "swift-mcumgr"),
                .product(name: "McuMgrTools", package: "swift-mcumgr"),
                .product(name: "McuMgr", package: "swift-mcumgr"),
                .product(name: "McuBoot", package: "swift-mcumgr"),
                .product(name: "SMP", package: "swift-mcumgr"),
                .product(name: "SMPUDP", package: "swift-mcumgr"),
                .product(name: "SMPSimulator", package: "swift-mcumgr"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "hci-bumble-throughput",
            dependencies: [
                .product(name: "McuMgr", package: "swift-mcumgr"),
                .product(name: "McuBoot", package: "swift-mcumgr"),
                .product(name: "McuMgrTools", package: "swift-mcumgr"),
                .product(name: "SMP", package: "swift-mcumgr"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
