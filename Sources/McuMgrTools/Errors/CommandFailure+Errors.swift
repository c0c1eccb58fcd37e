import McuBoot
import McuMgr
import McuMgrConnection
import SMP

// The one mapping from the errors of the library to exit statuses and messages:
// 1 device error, 2 usage, 3 transport or timeout, 4 invalid input file.

extension CommandFailure {
    /// The failure for any error a command throws; errors this library does not know are device errors (1).
    public init(_ error: any Error) {
        switch error {
        case let failure as CommandFailure: self = failure
        case let error as SMPError: self.init(error)
        case let error as UploadError: self.init(error)
        case let error as FirmwareUpgradeError: self.init(error)
        case let error as FileDownloadError: self.init(error)
        case let error as McuBootError: self.init(.input, "not a valid MCUboot image: \(error)")
        case let error as InputFileError: self.init(.input, error.description)
        case let error as PackageFileError: self.init(.input, error.description)
        case let error as FirmwarePackageError: self.init(.input, error.description)
        case let error as ConnectionStringError: self.init(.usage, error.description)
        case let error as ConnectionError: self.init(.transport, error.description)
        case let error as ProfileStoreError:
            if case .notFound = error { self.init(.usage, error.description) } else { self.init(.input, error.description) }
        case is CancellationError: self.init(.interrupted, "interrupted")
        default: self.init(.device, "\(error)")
        }
    }

    /// The failure for a session error.
    public init(_ error: SMPError) {
        switch error {
        case .device(let deviceError):
            self.init(.device, "the device answered with an error: \(deviceError)\(Self.hint(for: deviceError))", deviceError: deviceError)
        case .timeout:
            self.init(.transport, "\(error) (or --retries)")
        case .transport(let transportError):
            self.init(.transport, "\(transportError); check the address and that the device is up")
        case .requestTooLarge(let size, let limit):
            self.init(.usage, "request of \(size) bytes exceeds the \(limit)-byte packet limit; raise --mtu if the device takes larger packets, or send less")
        case .invalidResponse:
            self.init(.device, "\(error)")
        case .invalidRequest:
            self.init(.usage, "\(error)")
        case .closed:
            self.init(.transport, "the connection to the device was closed")
        case .cancelled:
            self.init(.interrupted, "cancelled")
        }
    }

    /// The failure for an upload error.
    public init(_ error: UploadError) {
        switch error {
        case .smp(.device(let deviceError)):
            self.init(.device, "the device refused the upload: \(deviceError)\(Self.hint(for: deviceError))", deviceError: deviceError)
        case .smp(let smpError):
            self.init(smpError)
        case .stalled:
            self.init(.transport, "\(error); check the link, lower --pipeline-depth, or raise --timeout")
        case .invalidConfiguration:
            self.init(.usage, "\(error)")
        case .verificationFailed:
            self.init(.device, "\(error); upload the file again")
        case .cancelled:
            self.init(.interrupted, "upload cancelled; running the same command again resumes it")
        }
    }

    /// The failure for a file download error.
    public init(_ error: FileDownloadError) {
        switch error {
        case .smp(let smpError): self.init(smpError)
        case .tooLarge: self.init(.device, "\(error); see --max-size")
        case .destination: self.init(.input, "\(error)")
        }
    }

    /// The failure for a firmware upgrade error.
    public init(_ error: FirmwareUpgradeError) {
        switch error.reason {
        case .invalidImage:
            self.init(.input, "\(error)")
        case .invalidConfiguration:
            self.init(.usage, "\(error)")
        case .smp(.device(let deviceError)):
            self.init(.device, "\(error)\(Self.hint(for: deviceError))", deviceError: deviceError)
        case .smp(let smpError):
            let inner = CommandFailure(smpError)
            self.init(inner.status, "firmware upgrade failed \(error.state.failurePhrase): \(inner.message)", deviceError: inner.deviceError)
        case .upload(let uploadError):
            let inner = CommandFailure(uploadError)
            self.init(inner.status, "firmware upgrade failed \(error.state.failurePhrase): \(inner.message)", deviceError: inner.deviceError)
        case .downgradeRefused:
            self.init(.device, "\(error); use a newer image, or leave out --no-downgrade")
        case .signatureRejected:
            self.init(.input, "\(error)")
        case .doesNotFit:
            self.init(.device, "\(error)")
        case .notNewerThanRunning:
            self.init(.device, "\(error); use an image with a higher version")
        case .unsupportedBootloaderMode:
            self.init(.device, "\(error) (--mode upload-only)")
        case .imageNotActive, .unexpectedState:
            self.init(.device, "\(error); check the device with 'mcumgr image list'")
        case .deviceDidNotReturn:
            self.init(.transport, "\(error); check the device, then 'mcumgr image list'")
        case .cancelled:
            self.init(.interrupted, "\(error)")
        }
    }

    /// What to do about a few common device errors.
    static func hint(for error: SMPDeviceError) -> String {
        switch error {
        case .image(.hashNotFound):
            return "; list the images and their hashes with 'mcumgr image list'"
        case .image(.currentVersionIsNewer):
            return "; the running image is as new or newer: build a newer version, or upload without --upgrade"
        case .image(.noFreeSlot), .image(.imageAlreadyPending):
            return "; confirm or erase the image in slot 1 first ('mcumgr image confirm', 'mcumgr image erase')"
        case .os(.rtcNotSet):
            return "; set the clock with 'mcumgr datetime set'"
        default:
            return error.status == .notSupported ? "; the device was built without this command" : ""
        }
    }
}
