#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// A failed file operation's error as one short reason for a message: the system's when there
/// is one (`No such file or directory`), otherwise the error's own text.
public enum FileErrorReason {
    /// The reason `error` gives.
    public static func text(_ error: any Error) -> String {
        guard let posix = error as? POSIXError ?? (error as? CocoaError)?.underlying as? POSIXError else { return "\(error)" }
        return String(cString: strerror(posix.code.rawValue))
    }
}
