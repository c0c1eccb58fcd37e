import ArgumentParser
import McuBoot
import McuMgr
import SMP

/// The exit statuses of `mcumgr`.
enum ExitStatus: Int32 {
    /// Success.
    case success = 0
    /// The device answered with an error (or with something that is not a valid answer).
    case device = 1
    /// The command line is wrong (unknown option, missing argument, bad value).
    case usage = 2
    /// The device could not be reached: transport failure or no response in time.
    case transport = 3
    /// An input file is missing, unreadable, or not a valid MCUboot image.
    case input = 4
    /// Interrupted.
    case interrupted = 130
}

/// An error the command line reports in one line and exits with.
struct Failure: Error, CustomStringConvertible {
    /// The exit status.
    let status: ExitStatus
    /// What went wrong and what to do, in one line.
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }

    /// The failure for any error a command throws.
    static func from(_ error: any Error) -> Failure {
        switch error {
        case let failure as Failure:
            return failure
        case let error as SMPError:
            return from(error)
        case let error as UploadError:
            return from(error)
        case let error as FirmwareUpgradeError:
            return from(error)
        case let error as McuBootError:
            return Failure(.input, "not a valid MCUboot image: \(error)")
        case let error as ValidationError:
            return Failure(.usage, error.message)
        case is CancellationError:
            return Failure(.interrupted, "interrupted")
        default:
            return Failure(.device, "\(error)")
        }
    }

    /// The failure for a session error.
    static func from(_ error: SMPError) -> Failure {
        switch error {
        case .device(let deviceError):
            return Failure(.device, "the device answered with an error: \(deviceError)\(hint(for: deviceError))")
        case .timeout:
            return Failure(.transport, "\(error) (or --retries)")
        case .transport(let transportError):
            return Failure(.transport, "\(transportError); check the address and that the device is up")
        case .requestTooLarge(let size, let limit):
            return Failure(.transport, "request of \(size) bytes exceeds the \(limit)-byte packet limit; raise --mtu if the device takes larger packets, or send less")
        case .invalidResponse:
            return Failure(.device, "\(error)")
        case .invalidRequest:
            return Failure(.usage, "\(error)")
        case .closed:
            return Failure(.transport, "the connection to the device was closed")
        }
    }

    /// The failure for an upload error.
    static func from(_ error: UploadError) -> Failure {
        switch error {
        case .device(let deviceError):
            return Failure(.device, "the device refused the upload: \(deviceError)\(hint(for: deviceError))")
        case .smp(let smpError):
            return from(smpError)
        case .stalled:
            return Failure(.transport, "\(error); check the link, lower --pipeline-depth, or raise --timeout")
        case .invalidConfiguration:
            return Failure(.usage, "\(error)")
        case .verificationFailed:
            return Failure(.device, "\(error); upload the file again")
        case .cancelled:
            return Failure(.interrupted, "upload cancelled; running the same command again resumes it")
        case .failed:
            return Failure(.device, "upload failed: \(error)")
        }
    }

    /// The failure for a firmware upgrade error.
    static func from(_ error: FirmwareUpgradeError) -> Failure {
        switch error.reason {
        case .invalidImage:
            return Failure(.input, "\(error)")
        case .invalidConfiguration:
            return Failure(.usage, "\(error)")
        case .device(let deviceError):
            return Failure(.device, "\(error)\(hint(for: deviceError))")
        case .smp(let smpError):
            let inner = from(smpError)
            return Failure(inner.status, "firmware upgrade failed in state \(error.state.rawValue): \(inner.message)")
        case .upload(let uploadError):
            let inner = from(uploadError)
            return Failure(inner.status, "firmware upgrade failed in state \(error.state.rawValue): \(inner.message)")
        case .downgradeRefused:
            return Failure(.device, "\(error); use a newer image, or leave out --no-downgrade")
        case .signatureRejected:
            return Failure(.input, "\(error)")
        case .doesNotFit:
            return Failure(.device, "\(error)")
        case .imageNotActive, .unexpectedState:
            return Failure(.device, "\(error); check the device with 'mcumgr image list'")
        case .deviceDidNotReturn:
            return Failure(.transport, "\(error); check the device, then 'mcumgr image list'")
        case .cancelled:
            return Failure(.interrupted, "\(error)")
        }
    }

    /// What to do about a few common device errors.
    private static func hint(for error: SMPDeviceError) -> String {
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
