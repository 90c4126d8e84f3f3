import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// One TLS port serving HTTP/2 and HTTP/1.1 with WebSocket upgrades, chosen per connection by ALPN.
///
/// Hummingbird's `.http2Upgrade(tlsConfiguration:)` falls back to a plain `HTTP1Channel` for clients
/// that do not negotiate `h2`, so WebSocket upgrades (`Upgrade: websocket` is HTTP/1.1 only) would be
/// answered as ordinary requests; and `.tls(.http1WebSocketUpgrade(…))` keeps WebSockets but never
/// speaks HTTP/2. This channel composes the two public halves: after the handshake an `h2` connection
/// goes to `HTTP2Channel`, an `http/1.1` one (or a client without ALPN) to
/// `HTTP1WebSocketUpgradeChannel`. Browsers open WebSockets on their own HTTP/1.1 connection when the
/// HTTP/2 server does not offer RFC 8441 extended CONNECT (NIOHTTP2 does not), so both kinds of
/// traffic work side by side on one port.
///
/// Run inside ``GuardedChildChannel``: the ``ConnectionGuardHandler`` sits right after the TLS
/// handler (handshake and header timeouts, the connection limit, graceful WebSocket closes).
struct TLSHTTPChannel: GuardableChildChannel {
    enum Negotiated: Sendable {
        case http1(HTTP1WebSocketUpgradeChannel.Value)
        case http2(HTTP2Channel.Value)
    }

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    struct UnsupportedProtocol: Error {}

    let sslContext: NIOSSLContext
    let http1: HTTP1WebSocketUpgradeChannel
    let http2: HTTP2Channel

    /// The ALPN protocols offered, most preferred first.
    static let applicationProtocols = ["h2", "http/1.1"]

    var speaksTLS: Bool { true }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        setup(channel: channel, logger: logger, guardHandler: nil)
    }

    func setup(channel: any Channel, logger: Logger, guardHandler: ConnectionGuardHandler) -> EventLoopFuture<Value> {
        setup(channel: channel, logger: logger, guardHandler: Optional(guardHandler))
    }

    private func setup(channel: any Channel, logger: Logger, guardHandler: ConnectionGuardHandler?) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
            if let guardHandler { try channel.pipeline.syncOperations.addHandler(guardHandler) }
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result, channel in
                switch result {
                case .negotiated("h2"):
                    guardHandler?.servesHTTP2()
                    return http2.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
                        if let guardHandler { try HTTP2ConnectionWatcher.install(on: channel, guardHandler: guardHandler) }
                        return .http2(value)
                    }.nonisolated()
                case .negotiated("http/1.1"), .fallback:
                    return http1.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
                        if let guardHandler { try HTTPHeadWatcher.install(on: channel, guardHandler: guardHandler) }
                        return .http1(value)
                    }.nonisolated()
                case .negotiated:
                    return channel.close().flatMapThrowing { throw UnsupportedProtocol() }
                }
            }
            try channel.pipeline.syncOperations.addHandler(negotiation)
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            // A failed handshake (no client certificate where one is required, an untrusted one, a
            // client that gave up) ends here: the connection is closed, nothing else happens.
            logger.debug("TLS connection ended before HTTP", metadata: ["error": "\(error)"])
        }
    }
}
