import Crypto
import SMP

/// The simulated SUIT device's state: installed manifests, the DFU partition (the candidate
/// envelope and its upload), cache partitions, and the processing of an envelope, which asks for
/// the images it names, one session at a time (nRF Connect SDK's `suitfu_mgmt`).
struct SUITState {
    /// A chunked transfer into a partition: the size announced with `len` and the bytes so far.
    struct Transfer {
        var size: Int
        var bytes: [UInt8]
    }

    /// What the device is doing with the candidate envelope.
    enum Processing {
        /// Nothing.
        case idle
        /// Waiting for image `index` of the envelope's fetches, asked for in session `session` at `since`.
        case fetching(index: Int, session: UInt32, since: SMPInstant)
        /// Done: rebooting to install.
        case installing
        /// Stuck for good (a hostile device).
        case stuck
    }

    let configuration: SUITDeviceConfiguration
    var roles: [SUITDeviceConfiguration.Role]
    /// Digests of the installed manifests, by role.
    var digests: [UInt32: [UInt8]] = [:]
    var envelopeUpload: Transfer?
    var envelope: [UInt8]?
    var deferred = false
    var resourceUpload: Transfer?
    var cacheUpload: (target: Int, transfer: Transfer)?
    var caches: [Int: [UInt8]] = [:]
    var processing = Processing.idle
    var summary: SUITEnvelopeSummary?
    var lastSession: UInt32 = 0
    /// The update to install at the next boot: the role, digest and sequence number.
    var pendingInstall: (role: UInt32, digest: [UInt8], sequenceNumber: UInt64)?
    /// Images the device has asked for, in order (for tests).
    var requested: [String] = []

    init(configuration: SUITDeviceConfiguration) {
        self.configuration = configuration
        roles = configuration.roles
        for role in roles where role.sequenceNumber != nil {
            digests[role.role] = Array(SHA256.hash(data: Array("installed manifest \(role.role)".utf8)))
        }
    }

    /// A reboot: what was processed is installed; transfers and processing are lost.
    mutating func boot() {
        if let install = pendingInstall, let index = roles.firstIndex(where: { $0.role == install.role }) {
            roles[index].sequenceNumber = install.sequenceNumber
            roles[index].semanticVersion = nil
            digests[install.role] = install.digest
        }
        pendingInstall = nil
        envelopeUpload = nil
        resourceUpload = nil
        cacheUpload = nil
        processing = .idle
        summary = nil
    }

    /// The URI the device asks for as fetch `index` (the hostile device asks for one the package lacks).
    func uri(ofFetch index: Int) -> String {
        configuration.hostility == .asksForUnknownResource ? "file://missing.bin" : summary?.fetches[index].uri ?? ""
    }

    /// Starts processing the stored envelope at `now`; returns whether the device reboots to install
    /// (false while it asks for images, or when the envelope is refused).
    mutating func startProcessing(at now: SMPInstant) -> Bool {
        guard let envelope, let summary = SUITEnvelopeSummary(envelope) else {
            processing = .idle
            return false
        }
        self.summary = summary
        if configuration.hostility == .neverFinishes {
            processing = .stuck
            return false
        }
        guard let role = roles.first(where: { $0.sequenceNumber.map { summary.sequenceNumber > $0 } ?? false }) ?? roles.first,
              role.sequenceNumber.map({ summary.sequenceNumber > $0 }) ?? true
        else {
            processing = .idle
            return false
        }
        pendingInstall = (role.role, summary.digest, summary.sequenceNumber)
        return advance(to: 0, at: now)
    }

    /// Asks for fetch `index`, or finishes when there is none left.
    mutating func advance(to index: Int, at now: SMPInstant) -> Bool {
        guard let summary, index < summary.fetches.count || (configuration.hostility == .asksEndlessly && !summary.fetches.isEmpty) else {
            processing = .installing
            return true
        }
        lastSession = lastSession == UInt32.max ? 1 : lastSession + 1
        let wrapped = configuration.hostility == .asksEndlessly ? index % summary.fetches.count : index
        processing = .fetching(index: wrapped, session: lastSession, since: now)
        requested.append(uri(ofFetch: wrapped))
        resourceUpload = nil
        return false
    }

    /// Gives up a fetch that waited past the timeout: processing fails, nothing is installed.
    mutating func expireFetch(at now: SMPInstant) {
        if case .fetching(_, _, let since) = processing, now - since >= configuration.fetchTimeout {
            processing = .idle
            pendingInstall = nil
        }
    }

    /// Checks a fetched image against the digest and size the manifest set for it.
    func accepts(_ bytes: [UInt8], forFetch index: Int) -> Bool {
        guard let fetch = summary?.fetches[index] else { return false }
        if let size = fetch.size, size != bytes.count { return false }
        if let digest = fetch.digest, digest != Array(SHA256.hash(data: bytes)) { return false }
        return true
    }
}
