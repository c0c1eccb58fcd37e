import SMP

/// Zephyr-style log lines (`[00:00:01.234,567] <inf> app: …`) that a device's logging subsystem
/// prints on the UART it shares with the SMP console transport, between and inside packets.
struct ConsoleNoise: Sendable {
    private var random: SeededRandom
    private let origin: SMPInstant
    private var count = 0

    private static let messages: [(level: String, module: String, text: String)] = [
        ("inf", "app", "heartbeat"),
        ("dbg", "mcumgr_smp", "processing request"),
        ("inf", "mcumgr_img_grp", "image upload in progress"),
        ("wrn", "flash_nrf", "flash write took longer than expected"),
        ("inf", "usb_cdc_acm", "DTR set"),
        ("err", "sensor", "i2c transfer failed: -5"),
        ("inf", "main", "*** Booting Zephyr OS build v3.6.0 ***"),
    ]

    init(seed: UInt64, origin: SMPInstant) {
        random = SeededRandom(seed: seed)
        self.origin = origin
    }

    /// True with the given probability in percent.
    mutating func chance(_ percent: Double) -> Bool { random.chance(percent) }

    /// One log line at `now`, with Zephyr's "\r\n" ending.
    mutating func line(at now: SMPInstant) -> [UInt8] {
        count += 1
        let message = Self.messages[Int(random.next() % UInt64(Self.messages.count))]
        let elapsed = now - origin
        let micros = max(0, Int64(elapsed.seconds * 1_000_000))
        let hours = micros / 3_600_000_000
        let minutes = micros / 60_000_000 % 60
        let seconds = micros / 1_000_000 % 60
        let millis = micros / 1000 % 1000
        let rest = micros % 1000
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let stamp = "[\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(millis, 3)),\(pad(rest, 3))]"
        return Array("\(stamp) <\(message.level)> \(message.module): \(message.text) #\(count)\r\n".utf8)
    }
}
