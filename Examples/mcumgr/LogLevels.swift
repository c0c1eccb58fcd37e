import Logging

/// How `mcumgr` logs: swift-log's stream handler on standard error, at the level `--log-level`
/// (or `-v`, debug) asks for; nothing below critical without either.
enum LogLevels {
    /// Installs the handler for `level`. The built-in simulator (label `mcumgr.sim`) logs at
    /// notice at most: its per-request lines would drown the client's.
    static func bootstrap(_ level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = label == "mcumgr.sim" && level < .notice ? .notice : level
            return handler
        }
    }
}
