import Foundation
import SMP

#if canImport(Glibc)
import Glibc
#endif

/// One finished child process: its exit status, wall time, and the CPU it used (user + system,
/// from `wait4`, so only that child is counted).
struct ChildRun: Sendable {
    let status: Int32
    let wallSeconds: Double
    let userSeconds: Double
    let systemSeconds: Double
    let stdout: String
    let stderr: String

    var cpuSeconds: Double { userSeconds + systemSeconds }

    /// Standard output and error, for failure messages.
    var transcript: String { "exit \(status)\n--- stdout\n\(stdout.suffix(2000))\n--- stderr\n\(stderr.suffix(2000))" }

    /// Runs `executable` with `arguments` (standard input /dev/null, output to files) and waits
    /// for it, killing it after `timeout`.
    static func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(600)) async throws -> ChildRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-throughput-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outPath = directory.appendingPathComponent("stdout").path
        let errPath = directory.appendingPathComponent("stderr").path

        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "250"
        environment["NO_COLOR"] = "1"
        environment["TERM"] = "dumb"
        environment["PYTHONUNBUFFERED"] = "1"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        let start = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(spawned)))") }

        let child = pid
        let watchdog = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { kill(child, SIGKILL) }
        }
        let (status, usage) = await Self.reap(child)
        watchdog.cancel()
        let wall = start.duration(to: .now)
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return ChildRun(
            status: status, wallSeconds: wall.seconds, userSeconds: usage.ru_utime.seconds, systemSeconds: usage.ru_stime.seconds,
            stdout: out, stderr: err)
    }

    /// Waits for `pid` on a thread of its own (wait4 blocks) and returns its status and usage.
    private static func reap(_ pid: pid_t) async -> (Int32, rusage) {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                var status: Int32 = 0
                var usage = rusage()
                while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
                let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                continuation.resume(returning: (code, usage))
            }
            thread.start()
        }
    }
}

/// What this process used so far (user + system CPU).
struct ProcessCPU {
    static func now() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_utime.seconds + usage.ru_stime.seconds
    }
}

extension timeval {
    var seconds: Double { Double(tv_sec) + Double(tv_usec) / 1e6 }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A benchmark step that could not run, with what to do about it.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
