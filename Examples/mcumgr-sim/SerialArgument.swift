/// `--serial` takes an optional path: alone it asks for a new pty. ArgumentParser options always
/// take a value, so a bare `--serial` (last, or followed by another option) becomes `--serial=`.
enum SerialArgument {
    /// The arguments with each bare `--serial` given an empty value.
    static func rewrite(_ arguments: [String]) -> [String] {
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--" {
                result += arguments[index...]
                break
            }
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            if argument == "--serial", next == nil || next!.hasPrefix("-") {
                result.append("--serial=")
            } else {
                result.append(argument)
            }
        }
        return result
    }
}
