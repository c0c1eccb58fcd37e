import Logging
import SMP

/// nRF Connect SDK's SUIT group (66), as nRF54H20 devices offer it: manifest roles and their
/// states, envelope, resource and cache uploads, the poll for images the device asks for, cleanup.
///
/// ``FirmwareUpgradeManager/start(package:configuration:)`` runs a whole SUIT update with these.
public struct SUITManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient
    let logger: Logger

    /// Makes a manager over `client`.
    public init(client: SMPClient, logger: Logger = Logger(label: "mcumgr.suit")) {
        self.client = client
        self.logger = logger
    }

    /// The roles of the manifests the device supports.
    public func roles(options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> [SUITManifestRole] {
        try await client.send(SUITManifestListRead(), options: options).manifests.map(\.role)
    }

    /// The configuration and installed state of the manifest of `role`.
    public func state(of role: SUITManifestRole, options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> SUITManifestState {
        try await client.send(SUITManifestStateRead(role: role), options: options)
    }

    /// Every supported role with its state, in the device's order.
    public func manifests(options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> [(role: SUITManifestRole, state: SUITManifestState)] {
        var result: [(role: SUITManifestRole, state: SUITManifestState)] = []
        for role in try await roles(options: options) {
            result.append((role, try await state(of: role, options: options)))
        }
        return result
    }

    /// Asks whether the device, processing an envelope, wants an image.
    public func poll(options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> SUITImageRequest {
        try await client.send(SUITMissingImagePoll(), options: options)
    }

    /// Starts processing an envelope uploaded with `defer_install`.
    public func processEnvelope(options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) {
        _ = try await client.send(SUITProcessEnvelope(), options: options)
    }

    /// Erases the DFU and cache partitions.
    public func cleanup(options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) {
        _ = try await client.send(SUITCleanup(), options: options)
    }

    /// Uploads `bytes` as `kind` (an envelope, a requested image, a cache image) through the upload engine.
    public func upload(
        _ bytes: [UInt8], as kind: SUITUploadTarget.Kind, configuration: UploadConfiguration = UploadConfiguration(),
        control: UploadControl = UploadControl(), progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws(UploadError) {
        let engine = UploadEngine(target: SUITUploadTarget(client: client, kind: kind), configuration: configuration, control: control, logger: logger)
        _ = try await engine.upload(bytes, progress: progress)
    }
}
