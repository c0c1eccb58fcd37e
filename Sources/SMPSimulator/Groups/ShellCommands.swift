/// The device's shell commands: `echo`, `uptime`, `kernel version|uptime`, `device list`, `fs ls|cat|rm`, `help`.
enum ShellCommands {
    /// Runs a command line; returns the captured output and the command's return value.
    static func run(_ argv: [String], on device: DeviceCore) -> (output: String, ret: Int) {
        let args = Array(argv.dropFirst())
        switch argv[0] {
        case "echo":
            return (args.joined(separator: " ") + "\n", 0)
        case "uptime":
            return ("Uptime: \(device.uptimeMilliseconds) ms\n", 0)
        case "kernel":
            switch args.first {
            case "version": return ("Zephyr version \(device.configuration.kernelVersion)\n", 0)
            case "uptime": return ("Uptime: \(device.uptimeMilliseconds) ms\n", 0)
            default: return ("kernel: wrong parameter count\n", -22)
            }
        case "device":
            guard args.first == "list" else { return ("device: wrong parameter count\n", -22) }
            return ("devices:\n- flash-controller (READY)\n- uart0 (READY)\n", 0)
        case "fs":
            return fileCommand(args, device)
        case "help":
            return ("Available commands:\n  device  echo  fs  help  kernel  uptime\n", 0)
        default:
            return ("\(argv[0]): command not found\n", -8)
        }
    }

    private static func fileCommand(_ args: [String], _ device: DeviceCore) -> (String, Int) {
        guard args.count == 2 else { return ("fs: wrong parameter count\n", -22) }
        let path = args[1]
        switch args[0] {
        case "ls":
            guard FileTree.isValidName(path), device.files.entry(at: path) == .directory else {
                return ("Unable to open \(path) (err -2)\n", -2)
            }
            return (device.files.list(path).map { $0 + "\n" }.joined(), 0)
        case "cat":
            guard let data = device.files.contents(of: path) else { return ("Failed to open \(path) (-2)\n", -2) }
            return (String(decoding: data, as: UTF8.self), 0)
        case "rm":
            guard device.files.remove(path) else { return ("Can't delete \(path) (-2)\n", -2) }
            return ("", 0)
        default:
            return ("fs: unknown parameter: \(args[0])\n", -22)
        }
    }
}
