@testable import BLEHost
import Testing

@Suite("ACL flow control by Number Of Completed Packets")
struct ACLCreditsTests {
    @Test("credits are taken per fragment, given back by completions (never more than taken), and all returned when a connection ends")
    func credits() {
        var credits = ACLCredits(total: 3)
        let taken = [credits.take(for: 1), credits.take(for: 1), credits.take(for: 2), credits.take(for: 1)]
        #expect(taken == [true, true, true, false])
        // A report of more packets than were sent on the handle gives back only what was taken.
        #expect(credits.complete(5, on: 1) == 3)
        #expect(credits.available == 2)
        #expect(credits.complete(1, on: 9) == 1)
        #expect(credits.available == 2)
        // Handle 2 disconnects with one packet outstanding: the controller flushed it.
        credits.release(handle: 2)
        #expect(credits.available == 3 && credits.outstanding.isEmpty)
    }
}
