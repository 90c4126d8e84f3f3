import Synchronization

/// What one HTTP connection may cost the server, and how long it may take.
///
/// Hummingbird's idle timeout covers keep-alive connections and stalled request bodies; these limits
/// cover what it does not: the first request head (before the HTTP handlers are installed), the
/// number of open connections, a peer that stops reading, and the time a graceful shutdown may take.
struct ConnectionLimits: Sendable {
    /// Open connections beyond this are answered 503 and closed.
    var maxConnections: Int
    /// A new connection must deliver its first request head within this, or it gets a 408 and is closed
    /// (over TLS: counted from the end of the handshake).
    var headerTimeout: Duration
    /// A TLS connection must complete its handshake within this, or it is closed.
    var handshakeTimeout: Duration
    /// A connection whose peer stops reading (the socket's send buffer stays full) for this long is closed.
    var sendTimeout: Duration
    /// How long a graceful shutdown waits for requests in flight before it closes their connections.
    var shutdownTimeout: Duration
    /// How long a refused or answered-and-closing connection stays half-open so the peer can read the answer.
    var lingerTime: Duration = .seconds(1)
    /// Open connections, shared by every connection of one server.
    let counter = ConnectionCounter()
}

/// Counts open connections across event loops.
final class ConnectionCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts a new connection and returns how many are open with it.
    func open() -> Int { count.add(1, ordering: .relaxed).newValue }

    /// Counts a closed connection.
    func close() { count.subtract(1, ordering: .relaxed) }

    /// Open connections.
    var current: Int { count.load(ordering: .relaxed) }
}
