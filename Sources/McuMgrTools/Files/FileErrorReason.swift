#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A failed file operation's error as one short reason for a message: the system's when there
/// is one (`No such file or directory`), otherwise the error's own text.
public enum FileErrorReason {
    /// The reason `error` gives.
    public static func text(_ error: any Error) -> String {
        if let posix = error as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let cocoa = error as? CocoaError, let underlying = cocoa.userInfo["NSUnderlyingError"] as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        return "\(error)"
    }
}
