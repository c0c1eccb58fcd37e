import SMP

extension UploadConfiguration {
    /// Derives the configuration from the device: asks for its MCUmgr parameters, bounds the
    /// session's requests by its `buf_size` (or `reassemblyBufferSize` when given), and takes the
    /// pipeline depth from its `buf_count − 1` unless `pipelineDepth` is given.
    ///
    /// A device that does not answer the parameters command gets depth 1 and the transport's packet size.
    public static func negotiated(
        with client: SMPClient, pipelineDepth: Int? = nil, byteAlignment: Int = 1, reassemblyBufferSize: Int? = nil,
        chunkTimeout: Duration = .seconds(2)
    ) async throws -> UploadConfiguration {
        let parameters: McuMgrParameters?
        do {
            parameters = try await DefaultManager(client: client).parameters()
        } catch SMPError.device {
            parameters = nil
        }
        if let buffer = reassemblyBufferSize ?? parameters?.bufferSize {
            await client.setDeviceBufferSize(buffer)
        }
        return UploadConfiguration(
            pipelineDepth: pipelineDepth ?? max(1, (parameters?.bufferCount ?? 2) - 1),
            byteAlignment: byteAlignment, packetSize: await client.packetLimit(), chunkTimeout: chunkTimeout
        )
    }
}
