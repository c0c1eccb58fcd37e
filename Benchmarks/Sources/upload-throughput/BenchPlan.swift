import SMPSimulator

/// What one invocation measures: the links, depths, images and tools.
struct BenchPlan: Sendable {
    struct EngineRow: Sendable {
        let link: any BenchLink
        let depth: Int?
        let imageKiB: Int
    }

    struct ToolRow: Sendable {
        let section: ResultRow.Section
        let link: any BenchLink
        let variant: ToolVariant
        let imageKiB: Int
    }

    var runs: Int
    /// Runs of a side-by-side row whose whole command is short (``BenchRunner/shortCommandSeconds``).
    var shortRuns: Int
    var engineRows: [EngineRow] = []
    var toolRows: [ToolRow] = []
    var drawsPlot: Bool

    /// A slot large enough for every image here.
    static let slotSize = 0x200000

    init(_ options: UploadThroughput) {
        runs = max(1, options.runs)
        shortRuns = max(runs, options.shortRuns)
        drawsPlot = options.plot
        let buffers = DeviceBuffers(size: options.bufSize, count: options.bufCount)
        if options.links.contains("udp") {
            for latency in options.latencies {
                let link = UDPLink(latency: latency, buffers: buffers, slotSize: Self.slotSize)
                for depth in options.depths { engineRows.append(EngineRow(link: link, depth: depth, imageKiB: options.size)) }
                engineRows.append(EngineRow(link: link, depth: nil, imageKiB: options.size))
            }
            // Depth beyond the device's buffers: 8 requested of a device that holds 4.
            let small = UDPLink(latency: 5, buffers: DeviceBuffers(size: options.bufSize, count: 4), slotSize: Self.slotSize)
            for depth in [3, 8] { engineRows.append(EngineRow(link: small, depth: depth, imageKiB: options.size)) }
            if options.tools {
                for latency in options.latencies {
                    let link = UDPLink(latency: latency, buffers: buffers, slotSize: Self.slotSize)
                    for variant in Self.udpVariants(packet: link.packetSize) {
                        toolRows.append(ToolRow(section: .tools, link: link, variant: variant, imageKiB: options.size))
                    }
                }
                let fast = UDPLink(latency: 0, buffers: buffers, slotSize: Self.slotSize)
                for variant in [
                    ToolVariant(tool: .mcumgr, frame: .bytes(fast.packetSize), depth: nil),
                    ToolVariant(tool: .mcumgr, frame: .bytes(fast.packetSize), depth: 1),
                    ToolVariant(tool: .toolkit, frame: .bytes(fast.packetSize)),
                    ToolVariant(tool: .smpmgr, frame: .bytes(fast.packetSize)),
                ] {
                    toolRows.append(ToolRow(section: .cpu, link: fast, variant: variant, imageKiB: options.cpuSize))
                }
            }
        }
        if options.links.contains("ble") {
            engineRows += Self.bleRows(depths: options.depths, imageKiB: options.bleSize)
        }
        if options.links.contains("serial") {
            for baud in options.bauds {
                let link = SerialLink(baud: baud, buffers: DeviceBuffers(size: options.bufSize, count: 4), slotSize: Self.slotSize)
                for depth in options.serialDepths { engineRows.append(EngineRow(link: link, depth: depth, imageKiB: options.serialSize)) }
                if options.tools {
                    for variant in [
                        ToolVariant(tool: .mcumgr, frame: .bytes(link.packetSize), depth: nil),
                        ToolVariant(tool: .mcumgr, frame: .bytes(link.packetSize), depth: 1),
                        ToolVariant(tool: .smpmgr, frame: .toolDefault), ToolVariant(tool: .smpmgr, frame: .bytes(link.packetSize)),
                        ToolVariant(tool: .toolkit, frame: .toolDefault), ToolVariant(tool: .toolkit, frame: .bytes(link.packetSize)),
                    ] {
                        toolRows.append(ToolRow(section: .tools, link: link, variant: variant, imageKiB: options.serialSize))
                    }
                }
            }
        }
    }

    /// The BLE rows: a representative subset of PHY/DLE × connection interval × link-layer buffers
    /// × reassembly (the full grid is 144 links × 6 depths):
    /// - the depth sweep on 1M without DLE, 1M with DLE and 2M with DLE at 7.5 ms, 6 LL buffers, reassembly on;
    /// - depth 4 at 15 and 30 ms for each of the three;
    /// - depth 4 with 1, 2, 4 and 8 LL buffers on 2M DLE at 7.5 ms;
    /// - depth 1 and 4 without reassembly for each of the three at 7.5 ms.
    ///
    /// Each row's image is at least `imageKiB` and big enough for about 2 s at the link's air
    /// ceiling: the engine sends the first chunk alone and waits for its answer (the device may
    /// resume), a start-up of about three connection events that would otherwise weigh 10 % and
    /// more on a fast link's smallest image, where the limit is a steady-state figure.
    static func bleRows(depths: [Int], imageKiB: Int) -> [EngineRow] {
        let buffers = DeviceBuffers(size: 2475, count: 8)
        let phys: [(BLELinkModel.PHY, Bool)] = [(.le1M, false), (.le1M, true), (.le2M, true)]
        func link(_ phy: BLELinkModel.PHY, _ dle: Bool, interval: Duration = .microseconds(7500), llBuffers: Int = 6, reassembly: Bool = true) -> BLELink {
            BLELink(
                model: BLELinkModel(phy: phy, dataLengthExtension: dle, connectionInterval: interval, packetsPerConnectionEvent: 8, deviceBuffers: llBuffers),
                mtu: 498, reassembly: reassembly, buffers: buffers, slotSize: slotSize)
        }
        func row(_ link: BLELink, depth: Int) -> EngineRow {
            let ceilingKiB = Int(link.model.throughputLimit(mtu: link.mtu) * 2) / 1024
            return EngineRow(link: link, depth: depth, imageKiB: max(imageKiB, min(512, ceilingKiB)))
        }
        var rows: [EngineRow] = []
        for (phy, dle) in phys {
            for depth in depths { rows.append(row(link(phy, dle), depth: depth)) }
        }
        for (phy, dle) in phys {
            for interval in [15, 30] { rows.append(row(link(phy, dle, interval: .milliseconds(interval)), depth: 4)) }
        }
        for llBuffers in [1, 2, 4, 8] { rows.append(row(link(.le2M, true, llBuffers: llBuffers), depth: 4)) }
        for (phy, dle) in phys {
            for depth in [1, 4] { rows.append(row(link(phy, dle, reassembly: false), depth: depth)) }
        }
        return rows
    }

    /// Our CLI at depth 1 and at its default, and both peers at their default frame and at ours.
    static func udpVariants(packet: Int) -> [ToolVariant] {
        [
            ToolVariant(tool: .mcumgr, frame: .bytes(packet), depth: nil),
            ToolVariant(tool: .mcumgr, frame: .bytes(packet), depth: 1),
            ToolVariant(tool: .smpmgr, frame: .bytes(packet)),  // smpmgr's default UDP frame is 1472 bytes: the same row
            ToolVariant(tool: .toolkit, frame: .toolDefault),
            ToolVariant(tool: .toolkit, frame: .bytes(packet)),
        ]
    }

    /// One tiny row of each kind: the engine, our CLI and one peer over UDP at 0 ms, one run, a 32 KiB image.
    static func smoke(_ options: UploadThroughput) -> BenchPlan {
        var plan = BenchPlan(runs: 1, drawsPlot: options.plot)
        let link = UDPLink(latency: 0, buffers: DeviceBuffers(size: options.bufSize, count: 4), slotSize: slotSize)
        plan.engineRows = [EngineRow(link: link, depth: 2, imageKiB: 32)]
        plan.toolRows = [
            ToolRow(section: .tools, link: link, variant: ToolVariant(tool: .mcumgr, frame: .bytes(link.packetSize), depth: nil), imageKiB: 32),
            ToolRow(section: .tools, link: link, variant: ToolVariant(tool: .toolkit, frame: .bytes(link.packetSize)), imageKiB: 32),
        ]
        return plan
    }

    private init(runs: Int, drawsPlot: Bool) {
        self.runs = runs
        self.shortRuns = runs
        self.drawsPlot = drawsPlot
    }
}
