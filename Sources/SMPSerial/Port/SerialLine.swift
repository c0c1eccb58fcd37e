import Glibc
import POSIXIO

/// An open tty or pty: async reads, whole ordered writes and `FIONREAD`, with serial errors.
///
/// The descriptor runs on a `PolledDescriptor` (a thread of its own) that reads ahead
/// at most ``readAhead`` reads of ``readSize`` bytes. `write` is serialised: the bytes of one call
/// reach the line before those of the next call start, whatever the tasks. `close()` fails
/// every waiting write, ends the reads and closes the descriptor.
public final class SerialLine: Sendable {
    /// The device path, for messages.
    public let path: String
    /// The most bytes one read of the descriptor takes.
    public static let readSize = 4096
    /// How many reads wait for the reader before the thread stops reading (then the kernel's
    /// buffer fills, and the sender waits).
    public static let readAhead = 4

    private let descriptor: PolledDescriptor

    /// Takes ownership of `fd` (made non-blocking here; closed when this throws) and starts its thread.
    ///
    /// - Parameters:
    ///   - fd: the open descriptor of the tty or pty, now this line's.
    ///   - path: the device's path, for messages.
    ///   - clearsExclusiveOnClose: clear `TIOCEXCL` before closing, so that others may open the device again.
    public init(taking fd: Int32, path: String, clearsExclusiveOnClose: Bool = false) throws(SerialPortError) {
        let clearExclusive: @Sendable (Int32) -> Void = { fd in _ = ioctl(fd, UInt(TIOCNXCL)) }
        do throws(SystemCallError) {
            descriptor = try PolledDescriptor(
                adopting: fd, kind: .byteStream, readSize: Self.readSize, readAhead: Self.readAhead, writesStopOnCancellation: true,
                threadName: "smp-serial \(path)", beforeClose: clearsExclusiveOnClose ? clearExclusive : nil)
        } catch {
            Glibc.close(fd)
            throw SerialPort.systemError(error.call, path: path, errno: error.errno)
        }
        self.path = path
    }

    /// Reads what is there (1 to `maximumCount` bytes), waiting until something is.
    ///
    /// Throws ``SerialPortError/hangup(path:)`` when the device went away (after the bytes it sent
    /// before), ``SerialPortError/closed`` after `close()`.
    public func read(maximumCount: Int = 4096) async throws(SerialPortError) -> [UInt8] {
        switch await descriptor.read(maximumCount: maximumCount) {
        case .bytes(let bytes): return bytes
        case .end(let end): throw error(for: end)
        case nil: throw .closed
        }
    }

    /// How many received bytes wait to be read (read ahead, and `FIONREAD`); 0 once closed or when the driver cannot say.
    public func bytesWaiting() -> Int {
        descriptor.bytesWaiting()
    }

    /// Writes all of `bytes`, after the bytes of every earlier call; waits while the line is full.
    ///
    /// Cancelling the task stops the write where it is (``SerialPortError/closed``): the line then
    /// carries part of the bytes, which a receiver of console frames skips.
    public func write(_ bytes: [UInt8]) async throws(SerialPortError) {
        do {
            try await descriptor.write(bytes)
        } catch {
            switch error {
            case .ended(let end): throw self.error(for: end)
            case .refused(let failure): throw SerialPort.systemError(failure.call, path: path, errno: failure.errno)
            case .cancelled: throw .closed
            }
        }
    }

    /// Fails every waiting write (with ``SerialPortError/closed``), ends the reads and closes the
    /// descriptor; returns when it is closed.
    public func close() async {
        await descriptor.close()
    }

    /// The serial error for the end of the line's I/O.
    private func error(for end: DescriptorEnd) -> SerialPortError {
        switch end {
        case .closed: return .closed
        case .peerClosed: return .hangup(path: path)
        case .failed(let failure):
            switch failure.errno {
            case EIO, ENXIO, ENODEV, EPIPE: return .hangup(path: path)
            case EBADF: return .closed
            default: return SerialPort.systemError(failure.call, path: path, errno: failure.errno)
            }
        }
    }
}
