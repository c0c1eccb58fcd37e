import McuMgr
import SMP

/// One upload of the image through our engine in this process (`ImageManager.upload` on an
/// `SMPClient` over the link's real transport), timed from the first chunk to the last answer:
/// the session reads the device's buffers (`mcumgr params`) before, as a session does once when
/// it connects. Whole-command rows (`ToolRun`) time everything.
enum EngineRun {
    static func upload(_ image: TestImage, on link: any BenchLink, depth: Int?) async throws -> Sample {
        let session = try await link.start()
        do {
            let sample = try await upload(image, session: session, depth: depth)
            await session.stop()
            return sample
        } catch {
            await session.stop()
            throw error
        }
    }

    private static func upload(_ image: TestImage, session: any LinkSession, depth: Int?) async throws -> Sample {
        let transport = try await session.makeTransport()
        try await transport.connect()
        let client = SMPClient(transport: transport, configuration: SMPClient.Configuration(timeout: .seconds(5), retries: 2))
        let configuration = UploadConfiguration(pipelineDepth: depth, byteAlignment: 4, chunkTimeout: .seconds(2))
        do {
            try await client.negotiate()
        } catch {
            await client.close()
            throw BenchError("reading the device's buffers failed: \(error)")
        }
        let cpu = ProcessCPU.now()
        let start = ContinuousClock.now
        do {
            try await ImageManager(client: client).upload(image: 0, data: image.bytes, configuration: configuration)
        } catch {
            await client.close()
            throw BenchError("engine upload (depth \(depth.map(String.init) ?? "default")) failed: \(error)")
        }
        let seconds = start.duration(to: .now).seconds
        let cpuSeconds = ProcessCPU.now() - cpu
        await client.close()
        return Sample(bytesPerSecond: Double(image.bytes.count) / seconds, wallSeconds: seconds, cpuSeconds: cpuSeconds)
    }
}
