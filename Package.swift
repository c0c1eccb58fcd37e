// swift-tools-version: 6.1
// swift-mcumgr: the McuManager / SMP (Simple Management Protocol) stack for Swift on Linux.

import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-mcumgr",
    // The package supports Linux (Glibc, termios, pthreads, BlueZ, no Foundation in the CLI) and no
    // other system: no `platforms` list, which would only set minimum versions of Apple systems.
    products: [
        .library(name: "Hex", targets: ["Hex"]),
        .library(name: "CBOR", targets: ["CBOR"]),
        .library(name: "SMP", targets: ["SMP"]),
        .library(name: "SMPUDP", targets: ["SMPUDP"]),
        .library(name: "SMPSerial", targets: ["SMPSerial"]),
        .library(name: "GATT", targets: ["GATT"]),
        .library(name: "SMPBLE", targets: ["SMPBLE"]),
        .library(name: "BLEHost", targets: ["BLEHost"]),
        .library(name: "McuBoot", targets: ["McuBoot"]),
        .library(name: "McuMgr", targets: ["McuMgr"]),
        .library(name: "SMPSimulator", targets: ["SMPSimulator"]),
        .library(name: "SMPTestSupport", targets: ["SMPTestSupport"]),
        .library(name: "McuMgrConnection", targets: ["McuMgrConnection"]),
        .library(name: "McuMgrTools", targets: ["McuMgrTools"]),
        .library(name: "McuMgrFleet", targets: ["McuMgrFleet"]),
        .library(name: "FirmwarePackageZIP", targets: ["FirmwarePackageZIP"]),
        // The zip reader alone, as a shared library the CLI opens only when it reads a DFU package
        // (ZIPFoundation loads Foundation and ICU, which the CLI otherwise leaves unloaded).
        .library(name: "McuMgrZIP", type: .dynamic, targets: ["McuMgrZIP"]),
        .library(name: "McuMgrConformance", targets: ["McuMgrConformance"]),
        .executable(name: "mcumgr", targets: ["mcumgr"]),
        .executable(name: "mcumgr-sim", targets: ["mcumgr-sim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // DER of RSA keys, checked before BoringSSL parses them (see Sources/McuBoot/RSAPublicKeyDER.swift).
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Deque for the I/O queues of the descriptor bearers and the LE host's inbox.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation` (DocC catalogs under Sources/*/*.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // DFU packages (dfu_application.zip): zip reading, never a hand-written inflate.
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        // System libraries (Debian: libcbor-dev, libbluetooth-dev, libdbus-1-dev).
        .systemLibrary(
            name: "CCBOR",
            pkgConfig: "libcbor",
            providers: [.apt(["libcbor-dev"])]
        ),
        // BlueZ's headers only: libbluetooth itself is opened at run time (SMPBLE's LibBluetooth),
        // so that a program using UDP or serial alone runs without libbluetooth.so.3. No pkgConfig:
        // bluez.pc would add -lbluetooth to every link (the headers are in /usr/include).
        .systemLibrary(name: "CBlueZ"),
        // libdbus-1 for BlueZ's D-Bus API (bluetoothd): every D-Bus byte is marshalled by libdbus.
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),

        // Bytes as hex text and back (below CBOR and McuBoot, so every layer prints bytes alike).
        .target(name: "Hex", swiftSettings: strict),

        // CBOR on libcbor.
        .target(name: "CBOR", dependencies: ["CCBOR", "Hex"], swiftSettings: strict),

        // The one place for descriptors (as NIOPosix is for SwiftNIO): the polled-descriptor engine
        // (its own thread, a wake-up pipe, bounded read-ahead, close-once) that serial, the HCI byte
        // stream, the ATT SEQPACKET bearer and BlueZ's polls run on; the one write-all with its
        // EINTR/EAGAIN policy; threads of their own (pthreads, not Foundation's Thread: the CLI loads
        // no Foundation). NIOConcurrencyHelpers: the engine's lock, shared with its thread.
        .target(
            name: "POSIXIO",
            dependencies: [
                "CThreadName", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // pthread_setname_np, which Swift's Glibc module hides (_GNU_SOURCE).
        .target(name: "CThreadName"),

        // SMP framing, errors, transports protocol and the client session.
        .target(
            name: "SMP",
            dependencies: [
                "CBOR", "Hex", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),

        // What tests share: virtual time (a serial executor and a clock that advances when it is
        // idle), scripted devices, child processes (simulator, peers, bumble). Not linked into the
        // CLI (it needs full Foundation: Process, Thread).
        .target(
            name: "SMPTestSupport",
            dependencies: [
                "SMP", "Hex", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict
        ),
        // Swift Testing traits over SMPTestSupport (test targets only: it links Testing).
        .target(name: "SMPTestTraits", dependencies: ["SMPTestSupport"], swiftSettings: strict),

        // ATT and GATT client over an ATT bearer (knows nothing of SMP).
        .target(
            name: "GATT",
            dependencies: ["POSIXIO", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),

        // SMP over GATT: through the BlueZ kernel-socket path to real adapters (L2CAP LE, HCI scanning),
        // through bluetoothd's D-Bus API (libdbus-1: discovery, connect, AcquireWrite/AcquireNotify
        // descriptors), and through our own LE host on an HCI controller (HCISession, HCIBLETransport).
        .target(
            name: "SMPBLE",
            dependencies: ["SMP", "GATT", "BLEHost", "CBlueZ", "CDBus", "POSIXIO", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),

        // Our own LE host over HCI (H4 over TCP, UART or the Linux user channel; L2CAP ATT and
        // signalling channels): an ATT bearer for the GATT client without a kernel Bluetooth stack.
        // NIOConcurrencyHelpers: the locks of the host's state, shared with its read loop.
        .target(
            name: "BLEHost",
            dependencies: [
                "GATT", "CBlueZ", "POSIXIO", .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),

        // UDP transport on SwiftNIO.
        .target(
            name: "SMPUDP",
            dependencies: [
                "SMP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // Serial transport: Zephyr's console framing (base64, CRC16, 0x06 0x09 / 0x04 0x14) or raw
        // SMP over a tty or pty, with termios set up through Glibc.
        .target(name: "SMPSerial", dependencies: ["SMP", "POSIXIO"], swiftSettings: strict),

        // posix_openpt/grantpt/unlockpt/ptsname_r, which Swift's Glibc module hides (_XOPEN_SOURCE).
        .target(name: "CPseudoTerminal"),

        // MCUboot image parsing and verification; DFU packages (manifest and contents) and SUIT envelopes.
        .target(
            name: "McuBoot",
            dependencies: [
                "Hex", "CBOR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),

        // Zip entries read with bounds (declared and inflated sizes), over ZIPFoundation, with a C entry
        // point for programs that open it at run time (libMcuMgrZIP.so). Knows nothing of firmware.
        .target(
            name: "McuMgrZIP",
            dependencies: [.product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strict
        ),
        // FirmwarePackage from a zip file, for library users (links ZIPFoundation and so Foundation).
        .target(name: "FirmwarePackageZIP", dependencies: ["McuBoot", "McuMgrZIP"], swiftSettings: strict),

        // Managers and the firmware upgrade engine.
        .target(
            name: "McuMgr",
            dependencies: [
                "SMP", "CBOR", "McuBoot", "Hex", "POSIXIO",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),

        // The reference device (over UDP, a pty, an ATT bearer, or our LE host as a peripheral on an HCI controller).
        .target(
            name: "SMPSimulator",
            dependencies: [
                "SMP", "CBOR", "SMPSerial", "CPseudoTerminal", "GATT", "BLEHost",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // Connection specs (our options and Go mcumgr's --conntype/--connstring), saved profiles, and
        // one factory that opens any transport: UDP, serial, BlueZ kernel sockets, our LE host over
        // HCI. Not the simulator: a program that offers `--sim` registers that connector itself.
        // McuMgr: the profiles file is read as every input file is (InputFile).
        .target(
            name: "McuMgrConnection",
            dependencies: [
                "McuMgr", "SMP", "SMPUDP", "SMPSerial", "SMPBLE", "BLEHost", "GATT",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // Many devices at once: one firmware upgrade per device with a concurrency limit, retries,
        // canaries, events by device, reports; dry runs and inventories.
        .target(
            name: "McuMgrFleet",
            dependencies: [
                "McuMgrConnection", "McuMgr", "SMP", "SMPUDP", "McuBoot",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // A device's SMP server checked against what the protocol and the major clients expect
        // (`mcumgr conformance`): raw probes over any transport, no session in between.
        .target(
            name: "McuMgrConformance",
            dependencies: ["SMP", "CBOR", "Hex", "McuBoot", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),

        // What programs on top of the library share with the CLI: image file arguments, progress text,
        // tables, the fleet's displays and reports, errors → exit statuses.
        .target(
            name: "McuMgrTools",
            dependencies: [
                "McuMgrFleet", "McuMgrConnection", "McuMgrConformance", "McuMgr", "SMP", "McuBoot", "Hex", "POSIXIO",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // Command-line tools.
        .executableTarget(
            name: "mcumgr",
            dependencies: [
                "McuMgrTools", "McuMgrFleet", "McuMgrConnection", "McuMgrConformance", "McuMgr", "SMP", "SMPUDP", "SMPBLE", "SMPSimulator", "McuBoot",
                "Hex",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/mcumgr",
            swiftSettings: strict
        ),
        // The README's library example, verbatim (a test keeps the two the same).
        .executableTarget(
            name: "library-quickstart",
            dependencies: ["McuMgr", "McuMgrConnection"],
            path: "Examples/library-quickstart",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "mcumgr-sim",
            dependencies: [
                "SMPSimulator", "SMPUDP", "SMP", "SMPSerial", "Hex", "POSIXIO", "BLEHost", "SMPBLE", "McuMgrConnection",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/mcumgr-sim",
            swiftSettings: strict
        ),

        // Tests.
        .testTarget(
            name: "POSIXIOTests", dependencies: ["POSIXIO", "SMPTestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: strict),
        .testTarget(name: "CBORTests", dependencies: ["CBOR", "SMPTestSupport", "SMPTestTraits"], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(
            name: "SMPTests",
            dependencies: ["SMP", "CBOR", "SMPTestSupport", "SMPTestTraits", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SMPSerialTests",
            dependencies: [
                "SMPSerial", "SMP", "Hex", "SMPSimulator", "SMPTestSupport", "SMPTestTraits", "McuMgr", "McuBoot",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GATTTests",
            dependencies: ["GATT", "SMP", "Hex", "SMPTestSupport", "SMPTestTraits", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SMPBLETests",
            dependencies: [
                "SMPBLE", "BLEHost", "GATT", "SMP", "Hex", "SMPSimulator", "SMPTestSupport", "SMPTestTraits", "McuMgr", "McuBoot",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "McuBootTests",
            dependencies: [
                "McuBoot", "FirmwarePackageZIP", "SMPTestSupport", "SMPTestTraits", "SMP", "Hex", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SMPSimulatorTests",
            dependencies: [
                "SMPSimulator", "SMPUDP", "SMP", "CBOR", "McuBoot", "SMPTestSupport", "SMPTestTraits",
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "McuMgrTests",
            dependencies: [
                "McuMgr", "SMPSimulator", "SMPUDP", "SMP", "CBOR", "McuBoot", "SMPTestSupport", "SMPTestTraits",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "McuMgrToolsTests",
            dependencies: ["McuMgrTools", "McuMgrConnection", "McuMgr", "SMPUDP", "SMP", "McuBoot", "SMPTestSupport", "Hex"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "McuMgrConnectionTests",
            dependencies: [
                "McuMgrConnection", "McuMgr", "SMPSimulator", "SMPUDP", "SMPSerial", "SMPBLE", "SMP", "SMPTestSupport", "SMPTestTraits",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BLEHostTests",
            dependencies: [
                "BLEHost", "GATT", "SMP", "SMPTestSupport", "SMPTestTraits", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "McuMgrFleetTests",
            dependencies: [
                "McuMgrFleet", "McuMgrTools", "McuMgrConnection", "McuMgr", "SMPSimulator", "SMPUDP", "SMP", "McuBoot", "SMPTestSupport", "SMPTestTraits",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "InteropTests",
            dependencies: [
                "SMPSimulator", "SMPUDP", "SMP", "CBOR", "McuBoot", "McuMgr", "McuMgrTools", "McuMgrConnection", "BLEHost", "GATT", "SMPBLE", "SMPTestSupport",
                "SMPTestTraits", "Hex",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Peers"],
            swiftSettings: strict
        ),
        // Bluetooth LE through a real Linux kernel and BlueZ in a qemu guest (scripts/blevm): skipped
        // where qemu is missing or the VM image cannot be built.
        .testTarget(name: "BlueZVMTests", dependencies: ["SMPTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "McuMgrConformanceTests",
            dependencies: ["McuMgrConformance", "SMPSimulator", "SMP", "CBOR", "McuBoot", "SMPTestSupport", "SMPTestTraits"],
            swiftSettings: strict
        ),
        // The README's example and docs/architecture.md's layer table against the sources.
        .testTarget(name: "DocumentationTests", swiftSettings: strict),
        .testTarget(
            name: "CLITests",
            dependencies: ["SMPSimulator", "McuBoot", "SMP", "SMPTestSupport"],
            swiftSettings: strict
        ),
    ]
)

