import GATT

/// The time source of an ``LEHost``: any clock measured in `Duration`, and the executor the host's
/// background tasks (its HCI reader and command timers) run on. The same wrapper as the GATT
/// client's, which the host's ATT bearers feed.
///
/// BLEHost knows nothing of SMP, so it does not take `SMPClock`; an `SMPClock` is a `Clock` of
/// `Duration`, so callers above pass `HostClock(smpClock, taskExecutor: smpClock.taskExecutor)`.
/// Tests over real sockets to bumble use `.continuous` with generous timeouts.
public typealias HostClock = GATTClock
