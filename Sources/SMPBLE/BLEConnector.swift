import GATT

/// Makes the ATT bearer of a new connection: the BlueZ L2CAP socket to a real device, or (in
/// tests) one end of a socketpair served by the simulator. ``BLETransport`` calls it on every
/// `connect()`, so a reconnect gets a fresh bearer.
public struct BLEConnector: Sendable, CustomStringConvertible {
    /// What the connector connects to, for messages (e.g. `AA:BB:CC:DD:EE:FF (random) via hci0`).
    public let description: String
    private let make: @Sendable () async throws(BLEError) -> any ATTBearer

    /// Makes a connector from a function that opens a connection.
    public init(_ description: String, make: @escaping @Sendable () async throws(BLEError) -> any ATTBearer) {
        self.description = description
        self.make = make
    }

    /// Opens a connection and returns its bearer.
    public func makeBearer() async throws(BLEError) -> any ATTBearer {
        try await make()
    }
}
