#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import McuBoot
import McuMgr
import McuMgrConnection

/// Reads the devices file of a fleet upgrade: one device a line (documented in the DevicesFile
/// article).
///
/// ```text
/// # bench rack, shelf 1
/// udp:127.0.0.2:1337                          left-1
/// udp:[::1]:1338                              name=v6-bench
/// type=udp connstring=[192.0.2.7]:1337        gateway
/// serial:dev=/dev/ttyACM0,baud=115200         desk
/// type=ble connstring="peer_name=Zephyr SMP"  "kitchen sensor"
/// profile=bench                               # or profile:bench
/// ```
public enum FleetDeviceList {
    /// The most devices a list may name.
    public static let maximumDevices = 100_000
    /// The largest devices file read, in bytes.
    public static let maximumFileSize = 16 << 20

    /// The keys a line may set with `key=value`.
    static let keys: Set<String> = ["type", "connstring", "name", "profile"]
    /// The transport types a `TYPE:CONNSTRING` token may start with (Go `mcumgr`'s, with aliases).
    static let types: Set<String> = ["udp", "oic_udp", "ble", "oic_ble", "bll", "serial", "oic_serial", "sim", "simulator"]

    /// Reads the devices file at `path` (UTF-8, with or without a byte order mark; lines ending
    /// in `\n`, `\r\n` or `\r`, as Windows editors and spreadsheets write them).
    public static func load(path: String) throws(FleetDeviceListError) -> [FleetDevice] {
        let text: String
        do {
            text = try InputFile.readText(path, maximumSize: maximumFileSize)
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        return try parse(text, source: path)
    }

    /// Reads a devices file's text; `source` names it in errors. The devices are numbered in order.
    /// A device named twice (the same connection on two lines) is refused; `sim` lines are each a
    /// simulated device of their own.
    public static func parse(_ text: String, source: String = "devices file") throws(FleetDeviceListError) -> [FleetDevice] {
        var devices: [FleetDevice] = []
        var lines: [FleetTarget: Int] = [:]
        var number = 0
        // "\r\n" is one Character in Swift: a split on "\n" alone would keep a CRLF file in one line.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            number += 1
            guard let device = try parseLine(String(line), number: number, source: source) else { continue }
            guard devices.count < maximumDevices else { throw .tooManyDevices(source: source, limit: maximumDevices) }
            if device.target != .spec(.simulator) {
                if let first = lines[device.target] {
                    throw .invalidLine(
                        source: source, line: number, text: line.trimmingWhitespace(),
                        reason: "\(device.target) is already on line \(first); list each device once")
                }
                lines[device.target] = number
            }
            devices.append(device)
        }
        guard !devices.isEmpty else { throw .noDevices(source: source) }
        return FleetDevice.numbered(devices)
    }

    /// One line: nil for a blank or comment line.
    static func parseLine(_ line: String, number: Int, source: String) throws(FleetDeviceListError) -> FleetDevice? {
        func invalid(_ reason: String) -> FleetDeviceListError {
            .invalidLine(source: source, line: number, text: line.trimmingWhitespace(), reason: reason)
        }
        let tokens: [String]
        do {
            tokens = try tokenize(line)
        } catch {
            throw invalid(error.reason)
        }
        guard !tokens.isEmpty else { return nil }
        var fields: [String: String] = [:]
        var target: FleetTarget?
        var name: String?
        for token in tokens {
            if let equals = token.firstIndex(of: "="), keys.contains(token[..<equals].lowercased()) {
                let key = token[..<equals].lowercased()
                guard fields[key] == nil else { throw invalid("'\(key)=' is given twice") }
                fields[key] = String(token[token.index(after: equals)...])
            } else if let typed = try typedTarget(token, invalid: invalid) {
                guard target == nil else { throw invalid("two connections on one line") }
                target = typed
            } else if name == nil {
                name = token
            } else {
                throw invalid("'\(token)' is neither a connection (udp:HOST[:PORT], TYPE:CONNSTRING, type=… connstring=…, profile=NAME) nor a name (the line names the device '\(name!)')")
            }
        }
        if let given = fields["name"] {
            guard name == nil else { throw invalid("two names: '\(name!)' and name=\(given)") }
            name = given
        }
        if let profile = fields["profile"] {
            guard target == nil, fields["type"] == nil, fields["connstring"] == nil else {
                throw invalid("two connections on one line: profile= names a saved connection")
            }
            guard !profile.isEmpty else { throw invalid("profile= needs a profile name") }
            target = .profile(profile)
        } else if fields["type"] != nil || fields["connstring"] != nil {
            guard target == nil else { throw invalid("two connections on one line") }
            do {
                target = .spec(try ConnectionSpec(type: fields["type"] ?? "udp", connString: fields["connstring"]))
            } catch {
                throw invalid(error.description)
            }
        }
        guard let target else { throw invalid("no connection: give udp:HOST[:PORT], TYPE:CONNSTRING, type=… connstring=…, or profile=NAME") }
        if let name, name.isEmpty { throw invalid("the name is empty") }
        return FleetDevice(target, name: name)
    }

    /// A `TYPE:CONNSTRING` token (or `sim`, or `profile:NAME`) as a target; nil when the token does
    /// not start with a type.
    static func typedTarget(_ token: String, invalid: (String) -> FleetDeviceListError) throws(FleetDeviceListError) -> FleetTarget? {
        let type: String
        let rest: String?
        if let colon = token.firstIndex(of: ":") {
            type = token[..<colon].lowercased()
            rest = String(token[token.index(after: colon)...])
        } else {
            type = token.lowercased()
            rest = nil
        }
        if type == "profile", let rest {
            guard !rest.isEmpty else { throw invalid("profile: needs a profile name") }
            return .profile(rest)
        }
        guard types.contains(type), rest != nil || type == "sim" || type == "simulator" else { return nil }
        do {
            return .spec(try ConnectionSpec(type: type, connString: rest))
        } catch {
            throw invalid(error.description)
        }
    }

    /// Why a line could not be split into tokens.
    struct TokenError: Error {
        let reason: String
    }

    /// Splits a line at spaces and tabs; double quotes group a token with spaces (and are removed);
    /// a `#` that starts a token outside quotes starts a comment that runs to the end of the line.
    static func tokenize(_ line: String) throws(TokenError) -> [String] {
        var tokens: [String] = []
        var current = ""
        var inToken = false
        var quoted = false
        for character in line {
            if quoted {
                if character == "\"" { quoted = false } else { current.append(character) }
                continue
            }
            switch character {
            case " ", "\t", "\r":
                if inToken { tokens.append(current) }
                current = ""
                inToken = false
            case "#" where !inToken:
                return tokens
            case "\"":
                quoted = true
                inToken = true
            default:
                current.append(character)
                inToken = true
            }
        }
        guard !quoted else { throw TokenError(reason: "a double quote is not closed") }
        if inToken { tokens.append(current) }
        return tokens
    }
}
