import NIOConcurrencyHelpers
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// The hand-over from a transport (or the session) to one consuming task: order, end, cancellation.
@Suite("SingleConsumerQueue", .virtualTime)
struct SingleConsumerQueueTests {
    @Test("elements come out in the order yielded, whether the consumer waited or not")
    func order() async {
        let queue = SingleConsumerQueue<Int>()
        for n in 0..<3 { queue.yield(n) }
        let clock = VirtualRuntime.currentClock
        let consumer = clock.task { () -> [Int] in
            var seen: [Int] = []
            while let n = await queue.next() { seen.append(n) }
            return seen
        }
        // The consumer drains the three and waits; the next ones are handed straight over.
        await Task.yield()
        for n in 3..<6 { queue.yield(n) }
        queue.finish()
        #expect(await consumer.value == [0, 1, 2, 3, 4, 5])
    }

    @Test("finish: what was yielded before is still read, then nil; later elements are dropped")
    func finishDrainsThenEnds() async {
        let queue = SingleConsumerQueue<String>()
        queue.yield("a")
        queue.yield("b")
        queue.finish()
        queue.yield("late")
        #expect(await queue.next() == "a")
        #expect(await queue.next() == "b")
        #expect(await queue.next() == nil)
        #expect(await queue.next() == nil)
    }

    @Test("a cancelled consumer reads nil at once, waiting or not, and the queue is finished")
    func cancellation() async {
        let queue = SingleConsumerQueue<Int>()
        let clock = VirtualRuntime.currentClock
        let waiting = clock.task { await queue.next() }
        await Task.yield()
        waiting.cancel()
        #expect(await waiting.value == nil)
        queue.yield(1)
        #expect(await queue.next() == nil, "a queue whose consumer was cancelled takes nothing more")

        let other = SingleConsumerQueue<Int>()
        other.yield(7)
        let cancelledFirst = clock.task { () -> Int? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await other.next()
        }
        #expect(await cancelledFirst.value == nil)
    }

    @Test("a limited queue drops what finds it full and takes more once read")
    func limit() async {
        let queue = SingleConsumerQueue<Int>(limit: 2)
        #expect(queue.yield(1) && queue.yield(2))
        #expect(!queue.yield(3), "a third unread element is dropped")
        #expect(await queue.next() == 1)
        #expect(queue.yield(4))
        queue.finish()
        #expect(!queue.yield(5), "nothing is taken after finish")
        #expect(await queue.next() == 2)
        #expect(await queue.next() == 4)
        #expect(await queue.next() == nil)
    }

    @Test("direct delivery: what was buffered goes first, in order, then each element inside yield; a waiting consumer reads nil")
    func directDelivery() async {
        let queue = SingleConsumerQueue<Int>()
        let clock = VirtualRuntime.currentClock
        let waiting = clock.task { await queue.next() }
        await Task.yield()
        // The consumer waits, so the first element goes to it; the next two are buffered.
        queue.yield(1)
        #expect(await waiting.value == 1)
        queue.yield(2)
        queue.yield(3)
        let seen = NIOLockedValueBox<[Int]>([])
        queue.deliverDirectly { n in seen.withLockedValue { $0.append(n) } }
        #expect(seen.withLockedValue { $0 } == [2, 3], "the buffered elements are handed over at once")
        #expect(queue.yield(4))
        #expect(seen.withLockedValue { $0 } == [2, 3, 4], "a later element is handled before yield returns")
        queue.finish()
        #expect(!queue.yield(5), "nothing is taken after finish")
        #expect(seen.withLockedValue { $0 } == [2, 3, 4])

        let other = SingleConsumerQueue<Int>()
        let replaced = clock.task { await other.next() }
        await Task.yield()
        other.deliverDirectly { _ in }
        #expect(await replaced.value == nil, "a consumer waiting when direct delivery starts reads nil")
    }

    @Test("SMPTransportEvents delivers events in order and ends with the transport")
    func transportEvents() async {
        let (events, continuation) = SMPTransportEvents.makeStream()
        continuation.yield(.connected)
        continuation.yield(.received([1, 2, 3]))
        continuation.yield(.disconnected(reason: "gone"))
        continuation.finish()
        var seen: [SMPTransportEvent] = []
        for await event in events { seen.append(event) }
        #expect(seen == [.connected, .received([1, 2, 3]), .disconnected(reason: "gone")])
    }
}
