/// How many connections the server keeps and how long it waits for them (`mock-collab serve`'s
/// `--max-connections`, `--idle-timeout`, `--header-timeout`, `--handshake-timeout`, `--send-timeout`, `--shutdown-timeout`).
/// They hold for plain HTTP and TLS alike, on the main port and the extra plain-HTTP one.
public struct ConnectionSettings: Sendable, Equatable {
    /// Open connections beyond this are answered 503 and closed.
    public var maxConnections: Int
    /// A keep-alive connection with no request in progress (an HTTP/2 one without open streams), or a
    /// request whose head or body stops arriving, is closed after this long without traffic.
    public var idleTimeout: Duration
    /// A new connection must deliver its first request head within this (else 408 and closed); over
    /// TLS counted from the end of the handshake, and over HTTP/2 a connection is closed without a 408.
    public var headerTimeout: Duration
    /// A TLS connection must complete its handshake within this, else it is closed.
    public var handshakeTimeout: Duration
    /// A connection whose peer stops reading for this long is closed (also a WebSocket blocked on a full buffer).
    public var sendTimeout: Duration
    /// The bound on a graceful shutdown: requests in flight get this long, then their connections are closed.
    public var shutdownTimeout: Duration

    /// - Parameters:
    ///   - maxConnections: Open connections at most (default 10,000).
    ///   - idleTimeout: Default 60 s.
    ///   - headerTimeout: Default 10 s.
    ///   - handshakeTimeout: Default 10 s.
    ///   - sendTimeout: Default 30 s.
    ///   - shutdownTimeout: Default 10 s.
    public init(
        maxConnections: Int = 10_000, idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10),
        sendTimeout: Duration = .seconds(30), shutdownTimeout: Duration = .seconds(10), handshakeTimeout: Duration = .seconds(10)
    ) {
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.handshakeTimeout = handshakeTimeout
        self.sendTimeout = sendTimeout
        self.shutdownTimeout = shutdownTimeout
    }
}
