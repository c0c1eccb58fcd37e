import CDBus
import Glibc
import POSIXIO
import Synchronization

/// A failed D-Bus call or connection: the error's D-Bus name (`org.bluez.Error.NotReady`,
/// `org.freedesktop.DBus.Error.AccessDenied`) and its message.
struct DBusCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name.
    let name: String
    /// The error's message.
    let message: String

    var description: String { message.isEmpty ? name : "\(message) (\(name))" }
}

/// A signal received on the bus: who sent it and what it carries.
struct DBusSignal: Sendable {
    let path: String
    let interface: String
    let member: String
    let arguments: [DBusValue]
}

/// A private connection to the system bus, served by a thread of its own: every libdbus call on
/// the connection runs on that thread, one after another (method calls block it until their reply
/// or timeout), and between calls it reads the signals the connection's match rules let through.
///
/// The thread waits in `poll` on the connection's socket and a ``WakePipe`` (POSIXIO), so a new
/// call starts at once. Nothing of the D-Bus wire format is handled here: libdbus marshals,
/// authenticates and parses.
final class DBusConnection: Sendable {
    /// The libdbus connection; touched only on the connection's thread (and here, before it starts).
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private typealias Job = @Sendable (OpaquePointer) -> Void

    private struct State {
        var jobs: [Job] = []
        var handlers: [Int: @Sendable (DBusSignal) -> Void] = [:]
        var nextHandler = 0
        var closing = false
        var closed = false
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let handle: Handle
    private let wake: WakePipe
    private let state = Mutex(State())

    private static let threadsReady: Bool = dbus_threads_init_default() != 0

    /// Connects to the system bus (privately: the connection is ours alone) and starts its thread.
    static func system() async throws(DBusCallError) -> DBusConnection {
        let result: Result<DBusConnection, DBusCallError> = await DetachedThread.run(name: "dbus-connect") {
            _ = threadsReady
            var error = DBusError()
            dbus_error_init(&error)
            guard let pointer = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error) else {
                defer { dbus_error_free(&error) }
                return .failure(Self.error(error))
            }
            // A bus that goes away must not end the process (libdbus's default for bus connections).
            dbus_connection_set_exit_on_disconnect(pointer, 0)
            do {
                return .success(try DBusConnection(pointer))
            } catch {
                dbus_connection_close(pointer)
                dbus_connection_unref(pointer)
                return .failure(DBusCallError(name: "thread", message: "\(error)"))
            }
        }
        return try result.get()
    }

    private init(_ pointer: OpaquePointer) throws {
        handle = Handle(pointer: pointer)
        wake = try WakePipe()
        do {
            try DetachedThread.start(name: "dbus") { [self] in run() }
        } catch {
            wake.close()
            throw error
        }
    }

    static func error(_ error: DBusError) -> DBusCallError {
        DBusCallError(
            name: error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
            message: error.message.map { String(cString: $0) } ?? "")
    }

    // MARK: Calls

    /// Calls `member` of `interface` on `path` of `destination` and returns the reply's arguments,
    /// waiting at most `timeout` for the reply.
    @discardableResult
    func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(DBusCallError) -> [DBusValue] {
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let result: Result<[DBusValue], DBusCallError> = await submit { connection in
            guard let message = dbus_message_new_method_call(destination, path, interface, member) else {
                return .failure(DBusCallError(name: "org.freedesktop.DBus.Error.NoMemory", message: "out of memory"))
            }
            defer { dbus_message_unref(message) }
            guard DBusValue.append(arguments, to: message) else {
                return .failure(DBusCallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "cannot marshal the arguments of \(member)"))
            }
            var error = DBusError()
            dbus_error_init(&error)
            guard let reply = dbus_connection_send_with_reply_and_block(connection, message, milliseconds, &error) else {
                defer { dbus_error_free(&error) }
                return .failure(Self.error(error))
            }
            defer { dbus_message_unref(reply) }
            return .success(DBusValue.arguments(of: reply))
        }
        return try result.get()
    }

    /// Adds a match rule, so that the signals it names reach the handlers.
    func addMatch(_ rule: String) async throws(DBusCallError) {
        let result: Result<Void, DBusCallError> = await submit { connection in
            var error = DBusError()
            dbus_error_init(&error)
            dbus_bus_add_match(connection, rule, &error)
            defer { dbus_error_free(&error) }
            return cdbus_error_is_set(&error) != 0 ? .failure(Self.error(error)) : .success(())
        }
        try result.get()
    }

    /// Calls `handler` on the connection's thread with every signal received; returns the token that removes it.
    func onSignal(_ handler: @escaping @Sendable (DBusSignal) -> Void) -> Int {
        state.withLock { s in
            s.nextHandler += 1
            s.handlers[s.nextHandler] = handler
            return s.nextHandler
        }
    }

    /// Removes a signal handler.
    func removeHandler(_ token: Int) {
        _ = state.withLock { $0.handlers.removeValue(forKey: token) }
    }

    /// Runs `body` on the connection's thread; after ``close()``, returns a failure without running it.
    private func submit<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) -> Result<T, DBusCallError>) async -> Result<T, DBusCallError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, DBusCallError>, Never>) in
            // The wake-up is written under the lock: once `closing` is seen the thread may close the
            // pipe, and a write after that would land on a closed (or reused) descriptor.
            let accepted = state.withLock { s -> Bool in
                guard !s.closing else { return false }
                s.jobs.append { connection in continuation.resume(returning: body(connection)) }
                wake.signal()
                return true
            }
            if !accepted {
                continuation.resume(returning: .failure(DBusCallError(name: "org.freedesktop.DBus.Error.Disconnected", message: "the D-Bus connection is closed")))
            }
        }
    }

    /// Closes the connection once the calls queued before have run; returns when it is closed.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.closed { return true }
                s.closing = true
                s.closeWaiters.append(continuation)
                wake.signal()
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: The thread

    private func run() {
        let connection = handle.pointer
        var fd: Int32 = -1
        _ = dbus_connection_get_unix_fd(connection, &fd)
        while true {
            let (jobs, closing) = state.withLock { s -> ([Job], Bool) in
                defer { s.jobs.removeAll() }
                return (s.jobs, s.closing)
            }
            for job in jobs { job(connection) }
            if closing && jobs.isEmpty { break }
            if dbus_connection_get_is_connected(connection) != 0 {
                _ = dbus_connection_read_write(connection, 0)
            }
            while let message = dbus_connection_pop_message(connection) {
                deliver(message)
                dbus_message_unref(message)
            }
            if !jobs.isEmpty { continue }
            var fds = [pollfd(fd: wake.reader, events: Int16(POLLIN), revents: 0)]
            if fd >= 0, dbus_connection_get_is_connected(connection) != 0 {
                fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
            }
            _ = poll(&fds, nfds_t(fds.count), 1000)
            wake.drain()
        }
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.closed = true
            s.handlers.removeAll()
            defer { s.closeWaiters.removeAll() }
            return s.closeWaiters
        }
        wake.close()
        for waiter in waiters { waiter.resume() }
    }

    private func deliver(_ message: OpaquePointer) {
        guard dbus_message_get_type(message) == cdbus_message_type_signal() else { return }
        let signal = DBusSignal(
            path: dbus_message_get_path(message).map { String(cString: $0) } ?? "",
            interface: dbus_message_get_interface(message).map { String(cString: $0) } ?? "",
            member: dbus_message_get_member(message).map { String(cString: $0) } ?? "",
            arguments: DBusValue.arguments(of: message))
        let handlers = state.withLock { Array($0.handlers.values) }
        for handler in handlers { handler(signal) }
        // Descriptors nobody asked for (none are expected in signals) are not leaked.
        for fd in signal.arguments.flatMap(\.descriptors) { Glibc.close(fd) }
    }
}
