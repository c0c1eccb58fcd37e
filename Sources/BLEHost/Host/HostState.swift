import DequeModule
import GATT

/// Everything the host's tasks share, behind the host's one lock.
struct HostState: Sendable {
    /// The host's own address.
    var address: LEAddress
    /// What the controller reported at start.
    var info: ControllerInfo?
    /// Why the host stopped, once it has.
    var closedReason: String?
    /// The command waiting for its answer (one at a time).
    var command: Pending<[UInt8]>?
    /// The connection attempt waiting for LE Connection Complete.
    var connect: Pending<LEConnection>?
    /// The peer of the connection attempt.
    var connectPeer: LEAddress?
    /// The scan running, if any.
    var scan: ScanSession?
    /// Advertising that waits for a central to connect (peripheral role).
    var advertising: Pending<LEConnection>?
    /// Pending-operation identifiers, so a late timer never completes a newer operation.
    var nextID = 0
    /// The controller's ACL buffers.
    var credits = ACLCredits(total: 1)
    /// Senders waiting for an ACL buffer, in order.
    var creditWaiters: [CreditWaiter] = []
    /// Open connections by handle: only those a connection attempt or advertising asked for, at
    /// most ``LEHost/Configuration/maximumConnections``.
    var connections: [UInt16: LEConnection] = [:]
    /// Handles of connections nobody asked for (unsolicited LE Connection Complete), waiting to be
    /// disconnected by the one stray reaper; at most ``LEHost/strayCapacity``, the rest left alone.
    var strays = Deque<UInt16>()
    /// Whether the stray reaper task runs.
    var reaping = false
    /// Unsolicited connections reported so far, and how many of them were not queued for a
    /// disconnect (the queue was full).
    var strayCount = 0
    var straysIgnored = 0
    /// Switching the last scan off, in the background after its deadline; ``LEHost/close()`` waits for it.
    var scanStop: Task<Void, Never>?
    /// Connections with a Remote Connection Parameter Request reply on its way (one at a time each).
    var parameterReplies: Set<UInt16> = []
    /// ACL fragments joined into L2CAP PDUs.
    var reassembler: L2CAPReassembler

    init(address: LEAddress, maximumPDUSize: Int) {
        self.address = address
        self.reassembler = L2CAPReassembler(maximumPDUSize: maximumPDUSize)
    }

    mutating func makeID() -> Int {
        nextID += 1
        return nextID
    }
}

/// An operation waiting for the controller: its result may arrive before its waiter does.
struct Pending<Value: Sendable>: Sendable {
    let id: Int
    let opcode: UInt16
    /// A command the host can do without, given up when something more important needs the controller.
    var optional = false
    var result: Result<Value, LEHostError>?
    var continuation: CheckedContinuation<Result<Value, LEHostError>, Never>?

    init(id: Int, opcode: UInt16 = 0) {
        self.id = id
        self.opcode = opcode
    }
}

/// A sender waiting for an ACL buffer.
struct CreditWaiter: Sendable {
    let handle: UInt16
    /// The connection it sends on (a later connection may reuse the handle).
    let connection: ObjectIdentifier
    let continuation: CheckedContinuation<Result<Void, LEHostError>, Never>
}

/// A scan in progress: what it collects and when it may stop early.
struct ScanSession: Sendable {
    let id: Int
    var collector: ScanCollector
    let stop: (@Sendable ([LEScanResult]) -> Bool)?
    var done = false
    var continuation: CheckedContinuation<Void, Never>?
}
