import Foundation
import SMPTestSupport

/// A whole-command upload tool: our `mcumgr` CLI (release build), smpmgr, or mcumgr-toolkit
/// through a few lines of Python. Each run is timed and its CPU read from `wait4`.
struct ToolVariant: Sendable, Hashable {
    enum Tool: String, Sendable, Hashable {
        case mcumgr
        case smpmgr
        case toolkit = "mcumgr-toolkit"
    }

    /// How large the tool's frames are.
    enum Frame: Sendable, Hashable {
        /// What the tool does without being told.
        case toolDefault
        /// SMP packets of this many bytes (header included).
        case bytes(Int)
    }

    let tool: Tool
    let frame: Frame
    /// Our pipeline depth (nil: the default, buf_count − 1); peers are stop-and-wait.
    var depth: Int?

    /// E.g. `smpmgr`, `mcumgr-toolkit (default frame)`.
    var label: String {
        switch frame {
        case .toolDefault: return "\(tool.rawValue) (default frame)"
        case .bytes(let n): return "\(tool.rawValue) (\(n)-byte frames)"
        }
    }

    /// The command line that uploads `image` to the device at `address`, or nil when this tool cannot reach it.
    func command(image: TestImage, address: LinkAddress) throws -> (String, [String])? {
        switch (tool, address) {
        case (.mcumgr, .udp(let host, let port)):
            var arguments = ["--udp", "\(host):\(port)"]
            if case .bytes(let n) = frame { arguments += ["--mtu", "\(n)"] }
            arguments += ["image", "upload", image.path, "--alignment", "4"]
            if let depth { arguments += ["--pipeline-depth", "\(depth)"] }
            return (try BuiltProducts.require("mcumgr"), arguments)
        case (.mcumgr, .serial(let path, let baud)):
            // Told the frame size, as the peers are (and as over UDP); without it our packets follow
            // the device's buf_size (less length and CRC), read with `mcumgr params` first.
            var arguments = ["--serial", path, "--baud", "\(baud)", "image", "upload", image.path, "--alignment", "4"]
            if case .bytes(let n) = frame { arguments += ["--mtu", "\(n)"] }
            if let depth { arguments += ["--pipeline-depth", "\(depth)"] }
            return (try BuiltProducts.require("mcumgr"), arguments)
        case (.smpmgr, .udp(let host, let port)):
            guard port == 1337 else { return nil }
            var arguments = ["--ip", host, "--timeout", "5"]
            // smpmgr's frame is its MTU less 28 bytes of IPv4 and UDP headers.
            if case .bytes(let n) = frame { arguments += ["--mtu", "\(n + 28)"] }
            return (BuiltProducts.venvTool("smpmgr"), arguments + ["image", "upload", image.path])
        case (.smpmgr, .serial(let path, let baud)):
            var arguments = ["--port", path, "--baudrate", "\(baud)", "--timeout", "5"]
            // Over serial smpmgr sizes packets by its line buffers (128-byte lines).
            if case .bytes(let n) = frame { arguments += ["--line-buffers", "\(max(2, (n + 127) / 128 + 1))"] }
            return (BuiltProducts.venvTool("smpmgr"), arguments + ["image", "upload", image.path])
        case (.toolkit, .udp(let host, let port)):
            return (BuiltProducts.venvTool("python"), ["-c", Self.toolkitScript, "udp", "\(host):\(port)", frameArgument, image.path])
        case (.toolkit, .serial(let path, let baud)):
            return (BuiltProducts.venvTool("python"), ["-c", Self.toolkitScript, "serial", "\(path)@\(baud)", frameArgument, image.path])
        case (_, .inProcess):
            return nil
        }
    }

    private var frameArgument: String {
        if case .bytes(let n) = frame { return "\(n)" }
        return "default"
    }

    /// mcumgr-toolkit (Rust client, Python bindings): upload the file to image 0.
    static let toolkitScript = """
        import sys
        import mcumgr_toolkit as m
        kind, address, frame, path = sys.argv[1:5]
        data = open(path, "rb").read()
        if kind == "udp":
            host, port = address.rsplit(":", 1)
            c = m.MCUmgrClient.udp(host, int(port), timeout_ms=5000)
        else:
            tty, baud = address.rsplit("@", 1)
            c = m.MCUmgrClient.serial(tty, int(baud), timeout_ms=5000)
        if frame != "default":
            c.set_frame_size(int(frame))
        c.image_upload(data)
        """

    /// One upload against a fresh device on `link`; nil when this tool cannot reach that link.
    func upload(_ image: TestImage, on link: any BenchLink) async throws -> Sample? {
        let session = try await link.start()
        let run: ChildRun
        do {
            guard let (executable, arguments) = try command(image: image, address: session.address) else {
                await session.stop()
                return nil
            }
            run = try await ChildRun.run(executable, arguments, timeout: .seconds(600))
        } catch {
            await session.stop()
            throw error
        }
        await session.stop()
        guard run.status == 0 else { throw BenchError("\(label) on \(link.label) failed:\n\(run.transcript)") }
        return Sample(bytesPerSecond: Double(image.bytes.count) / run.wallSeconds, wallSeconds: run.wallSeconds, cpuSeconds: run.cpuSeconds)
    }
}
