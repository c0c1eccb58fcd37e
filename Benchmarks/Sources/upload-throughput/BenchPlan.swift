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
    var engineRows: [EngineRow] = []
    var toolRows: [ToolRow] = []
    var drawsPlot: Bool
    var isSmoke = false

    /// A slot large enough for every image here.
    static let slotSize = 0x200000

    init(_ options: UploadThroughput) {
        runs = max(1, options.runs)
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
        if options.links.contains("serial") {
            for baud in options.bauds {
                let link = SerialLink(baud: baud, buffers: DeviceBuffers(size: options.bufSize, count: 4), slotSize: Self.slotSize)
                for depth in options.serialDepths { engineRows.append(EngineRow(link: link, depth: depth, imageKiB: options.serialSize)) }
                if options.tools {
                    for variant in [
                        ToolVariant(tool: .smpmgr, frame: .toolDefault), ToolVariant(tool: .smpmgr, frame: .bytes(link.packetSize)),
                        ToolVariant(tool: .toolkit, frame: .toolDefault), ToolVariant(tool: .toolkit, frame: .bytes(link.packetSize)),
                    ] {
                        toolRows.append(ToolRow(section: .tools, link: link, variant: variant, imageKiB: options.serialSize))
                    }
                }
            }
        }
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
        plan.isSmoke = true
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
        self.drawsPlot = drawsPlot
    }
}
