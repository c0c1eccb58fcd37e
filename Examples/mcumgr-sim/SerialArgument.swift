/// `--serial` takes an optional path: alone it asks for a new pty. ArgumentParser options always
/// take a value, so a bare `--serial` (last, or followed by another option) becomes the hidden
/// flag `--serial-pty`.
enum SerialArgument {
    /// The hidden flag a bare `--serial` becomes.
    static let newPseudoTerminalFlag = "serial-pty"

    /// The arguments with each bare `--serial` replaced by `--serial-pty`.
    static func rewrite(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--" {
                result += arguments[index...]
                break
            }
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            if argument == "--serial", next == nil || next!.hasPrefix("-") {
                result.append("--" + newPseudoTerminalFlag)
            } else {
                result.append(argument)
            }
        }
        return result
    }
}
