import McuMgr
import McuMgrTools
import SMP
import SMPTestSupport
import Synchronization
import Testing

/// Progress text from `UploadProgress`: rates with units and time left, as a bar or as 10 % lines.
@Suite("Progress text")
struct ProgressTextTests {
    /// 78 848 of 262 696 bytes at 56.7 KiB/s now (40 KiB/s on average): 3.17 s left at the current rate.
    static let progress = UploadProgress(bytesSent: 78_848, totalBytes: 262_696, currentBytesPerSecond: 58_060.8, averageBytesPerSecond: 40_960)

    @Test("rate, ETA and percent of a fixed progress report")
    func fixedProgress() throws {
        let p = Self.progress
        #expect(p.bytesPerSecond == 58_060.8)
        let eta = try #require(p.estimatedTimeRemaining)
        #expect(abs(eta.seconds - 183_848 / 58_060.8) < 1e-9)
        #expect(p.summary == "78848/262696 bytes, 56.7 KiB/s, ETA 0:04")
        #expect(p.description == "30% (78848/262696 bytes, 56.7 KiB/s, ETA 0:04)")
        #expect(ProgressText.line(label: "upload", percent: 30, p) == "upload: 30% (78848/262696 bytes, 56.7 KiB/s, ETA 0:04)")
        #expect(ProgressText.bar(label: "upload", p)
            == "upload [#########---------------------]  30%  77.0 KiB/256.5 KiB  56.7 KiB/s  ETA 0:04")
        #expect(ProgressText.decile(p) == 3)
    }

    @Test("before the first window the average rate is used; with no rate the ETA is unknown")
    func unknownRate() {
        let averageOnly = UploadProgress(bytesSent: 1_000, totalBytes: 3_000, currentBytesPerSecond: 0, averageBytesPerSecond: 500)
        #expect(averageOnly.bytesPerSecond == 500)
        #expect(averageOnly.estimatedTimeRemaining == .seconds(4))
        let none = UploadProgress(bytesSent: 0, totalBytes: 2 * 1024 * 1024, currentBytesPerSecond: 0, averageBytesPerSecond: 0)
        #expect(none.estimatedTimeRemaining == nil)
        #expect(none.description == "0% (0/2097152 bytes, -- B/s, ETA --:--)")
        #expect(ProgressText.bar(label: "image 1", none) == "image 1 [------------------------------]   0%  0 B/2.00 MiB  -- B/s  ETA --:--")
        let done = UploadProgress(bytesSent: 10, totalBytes: 10, currentBytesPerSecond: 3_900_000, averageBytesPerSecond: 1)
        #expect(done.description == "100% (10/10 bytes, 3.72 MiB/s, ETA 0:00)")
        // The fleet table's narrower gauge; fractions outside 0–1 are clamped.
        #expect(ProgressText.gauge(0.5, width: 20) == "[##########----------]  50%")
        #expect(ProgressText.gauge(1.7, width: 4) == "[####] 100%")
        #expect(ProgressText.gauge(-1, width: 4) == "[----]   0%")
    }

    @Test("units and clock readings", arguments: [
        (512.0, "512 B"), (1023.4, "1023 B"), (1024, "1.0 KiB"), (12_595.2, "12.3 KiB"), (1_572_864, "1.50 MiB"),
    ])
    func sizes(bytes: Double, text: String) {
        #expect(TextFormat.size(bytes) == text)
        #expect(TextFormat.rate(bytes) == text + "/s")
    }

    @Test("durations as clock readings")
    func clock() {
        #expect(TextFormat.clock(0) == "0:00")
        #expect(TextFormat.clock(6.2) == "0:07")
        #expect(TextFormat.clock(3723) == "1:02:03")
        #expect(TextFormat.clock(.infinity) == "--:--")
        #expect(TextFormat.clock(-1) == "--:--")
        #expect(TextFormat.fixed(2.346, 2) == "2.35")
        #expect(TextFormat.fixed(-0.25, 1) == "-0.3")
    }

    @Test("the meter's rates on virtual time: none before a second, then over the window; bytes already on the device count in no rate")
    func meter() async throws {
        let runtime = VirtualRuntime()
        let reports = try await runtime.run { clock -> [UploadProgress] in
            var meter = UploadProgressMeter(total: 10_000, clock: clock)
            meter.startsAt(1_000)  // resumed: 1000 bytes were already on the device
            var reports = [meter.record(1_000)]
            for bytes in [2_000, 4_000, 8_000] {
                try await clock.sleep(for: .milliseconds(500))
                reports.append(meter.record(bytes))
            }
            return reports
        }
        #expect(reports.map(\.rateIsKnown) == [false, false, true, true])
        #expect(reports.map(\.currentBytesPerSecond) == [0, 0, 3_000, 14_000.0 / 3])
        #expect(reports.map(\.averageBytesPerSecond) == [0, 0, 3_000, 14_000.0 / 3])
        #expect(reports.map(\.bytesAlreadyOnDevice) == [1_000, 1_000, 1_000, 1_000])
        #expect(reports[1].summary == "2000/10000 bytes, -- B/s, ETA --:--")
        #expect(reports.last?.estimatedTimeRemaining == .seconds(2_000 / (14_000.0 / 3)))
    }

    @Test("a stall and then a burst read as the rate over the last three seconds, not as a jump (the loss case of issue 32)")
    func meterAfterStall() async throws {
        let runtime = VirtualRuntime()
        let reports = try await runtime.run { clock -> [UploadProgress] in
            var meter = UploadProgressMeter(total: 1_000_000, clock: clock)
            meter.startsAt(0)
            var reports: [UploadProgress] = []
            // 1 KiB every 100 ms for 5 s: 10 KiB/s.
            for step in 1...50 {
                try await clock.sleep(for: .milliseconds(100))
                reports.append(meter.record(step * 1_024))
            }
            // Nothing acknowledged for 10 s (losses), then 20 KiB at once, 1 ms apart.
            try await clock.sleep(for: .seconds(10))
            reports.append(meter.record(51 * 1_024))
            try await clock.sleep(for: .milliseconds(1))
            reports.append(meter.record(70 * 1_024))
            return reports
        }
        #expect(abs(reports[49].currentBytesPerSecond - 10_240) < 1)
        // The burst is spread over at least the window: at most 20 KiB / 3 s, not 20 KiB / 1 ms.
        let burst = reports[51].currentBytesPerSecond
        #expect(burst <= 19 * 1_024 / 3.0 + 1, "\(burst)")
        #expect(reports[51].rateIsKnown)
    }

    @Test("many answers a second for long (samples dropped in batches): the rate stays the window's, and changes with the pace")
    func meterOverManyAnswers() async throws {
        let runtime = VirtualRuntime()
        let rates = try await runtime.run { clock -> [Double] in
            var meter = UploadProgressMeter(total: 100_000_000, clock: clock)
            meter.startsAt(0)
            var bytes = 0, rates: [Double] = []
            // 500 answers a second of 100 bytes (50 000 B/s) for 10 s, then 250 a second (25 000 B/s) for 10 s.
            for (count, step) in [(5_000, Duration.milliseconds(2)), (2_500, .milliseconds(4))] {
                for _ in 0..<count {
                    try await clock.sleep(for: step)
                    bytes += 100
                    rates.append(meter.record(bytes).currentBytesPerSecond)
                }
            }
            return rates
        }
        #expect(abs(rates[4_999] - 50_000) < 100, "\(rates[4_999])")
        #expect(abs(rates[7_499] - 25_000) < 100, "\(rates[7_499])")
    }

    @Test("off a terminal, one line at each 10 %, and nothing after finish")
    func lines() {
        let output = Mutex<[String]>([])
        let display = ProgressDisplay(label: "upload", isTerminal: false) { text in output.withLock { $0.append(text) } }
        for bytes in stride(from: 0, through: 1000, by: 50) {
            display.update(UploadProgress(bytesSent: bytes, totalBytes: 1000, currentBytesPerSecond: 100, averageBytesPerSecond: 100))
        }
        display.finish()
        display.update(UploadProgress(bytesSent: 1000, totalBytes: 1000, currentBytesPerSecond: 100, averageBytesPerSecond: 100))
        let lines = output.withLock { $0 }
        #expect(lines.count == 10)
        #expect(lines.first == "upload: 10% (100/1000 bytes, 100 B/s, ETA 0:09)\n")
        #expect(lines.last == "upload: 100% (1000/1000 bytes, 100 B/s, ETA 0:00)\n")
    }

    @Test("on a terminal, a bar redrawn in place at most ten times a second, ended by a newline")
    func bar() async throws {
        let runtime = VirtualRuntime()
        let lines = try await runtime.run { clock -> [String] in
            let output = Mutex<[String]>([])
            let display = ProgressDisplay(label: "download", isTerminal: true, clock: clock) { text in output.withLock { $0.append(text) } }
            for step in 0...10 {
                display.update(bytes: step * 100, total: 1000)  // the display's own meter measures the rate
                try await clock.sleep(for: .milliseconds(step % 2 == 0 ? 20 : 200))
            }
            display.finish()
            return output.withLock { $0 }
        }
        #expect(lines.last == "\n")
        let bars = lines.dropLast()
        #expect(bars.allSatisfy { $0.hasPrefix("\rdownload [") && $0.hasSuffix("\u{1b}[K") })
        #expect(bars.count == 6, "\(bars)")
        #expect(bars.last?.contains("] 100%  1000 B/1000 B") == true)
    }
}
