import Foundation
import Glibc

/// bumble's two virtual controllers on one virtual link (`bumble.apps.controllers`), each on its
/// own TCP port of a fresh loopback address, so that sets of controllers run side by side.
///
/// The process holds a lifeline on its standard input: if this process dies, it stops.
public struct BumbleControllers: Sendable {
    /// The loopback address both controllers listen on.
    public let address: String
    /// The TCP port of the first controller.
    public let firstPort: Int
    /// The TCP port of the second controller (when it is served over TCP).
    public let secondPort: Int
    /// The controllers' process.
    public let process: ChildProcess
    /// Where the process's standard error goes.
    public let errorLog: URL

    /// Starts the controllers on a fresh `prefix.x.y` address: the first served over TCP, the
    /// second with `secondTransport` (given the address and a free port; TCP on them by default).
    public static func launch(
        addressPrefix: String, secondTransport: (String, Int) -> String = { "tcp-server:\($0):\($1)" }
    ) throws -> BumbleControllers {
        let address = "\(addressPrefix).\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254))"
        let directory = try Subprocess.temporaryDirectory("bumble")
        let ports = try freeTCPPorts(on: address, count: 2)
        // bumble.apps.controllers as is, plus a thread that exits when the lifeline closes.
        let launcher = """
            import os, runpy, sys, threading
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            sys.argv = ['bumble-controllers'] + sys.argv[1:]
            runpy.run_module('bumble.apps.controllers', run_name='__main__')
            """
        let errorLog = directory.appendingPathComponent("controllers.err")
        let process = try Subprocess.launch(
            BuiltProducts.venvTool("python"), ["-c", launcher, "tcp-server:\(address):\(ports[0])", secondTransport(address, ports[1])],
            stdout: directory.appendingPathComponent("controllers.out"), stderr: errorLog, lifeline: true)
        return BumbleControllers(address: address, firstPort: ports[0], secondPort: ports[1], process: process, errorLog: errorLog)
    }

    /// `tcp:ADDRESS:PORT` of the first controller, as `--hci` takes it.
    public var first: String { "tcp:\(address):\(firstPort)" }
    /// `tcp:ADDRESS:PORT` of the second controller.
    public var second: String { "tcp:\(address):\(secondPort)" }

    /// Waits until both controllers accept TCP connections (bumble takes a while to start); false
    /// after `timeout` (times ``TestTimeScale``) or when the process stopped.
    public func waitUntilListening(timeout: Duration = .seconds(30)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + TestTimeScale.scaled(timeout)
        while clock.now < deadline, process.isRunning {
            if Self.accepts(address, firstPort), Self.accepts(address, secondPort) { return true }
            try? await clock.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Stops the controllers and waits for them.
    public func stop() async {
        process.terminate()
        _ = await process.exitStatus()
    }

    /// Whether a TCP connection to `address`:`port` is accepted now (closed again at once).
    static func accepts(_ address: String, _ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, address, &sin.sin_addr)
        return withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } } == 0
    }

    /// TCP ports the kernel says are free on `address` now (bound and released at once).
    static func freeTCPPorts(on address: String, count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { _ = close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw ProcessError("socket: errno \(errno)") }
            sockets.append(fd)
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = 0
            inet_pton(AF_INET, address, &sin.sin_addr)
            let bound = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard bound == 0 else { throw ProcessError("bind \(address): errno \(errno)") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            ports.append(Int(UInt16(bigEndian: sin.sin_port)))
        }
        return ports
    }
}
