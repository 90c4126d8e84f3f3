import CollabTLS
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// What the server listens with: plain HTTP/1.1 with WebSocket upgrades, or TLS with HTTP/2 and
/// HTTP/1.1 (WebSockets included) chosen by ALPN, optional mutual TLS, and optionally a second,
/// plain-HTTP port serving the same router.
struct ServerTransport: Sendable {
    /// `http` or `https`.
    let scheme: String
    /// The TLS configuration, when TLS is on.
    let tlsConfiguration: TLSConfiguration?
    /// The TLS settings the transport was made from.
    let settings: TLSSettings?
    /// The server certificate's pins, when TLS is on (logged at start).
    let pins: CertificatePins?
    private let plainPort = ListeningPort()

    /// Prepares the transport: loads or issues certificates (the development CA is made on first use).
    init(configuration: ServerConfiguration, logger: Logger) throws {
        guard let settings = configuration.tls else {
            self.scheme = "http"
            self.tlsConfiguration = nil
            self.settings = nil
            self.pins = nil
            return
        }
        let directory = TLSDirectory(dataDirectory: settings.dataDirectory)
        var tls: TLSConfiguration
        switch settings.certificate {
        case .development(let names):
            let (identity, issued) = try directory.serverIdentity(names: try ServerNames(names))
            tls = try identity.serverConfiguration()
            let pins = try identity.pins
            self.pins = pins
            let message =
                "TLS: \(issued ? "issued" : "using") server certificate for \(names.joined(separator: ", ")); "
                + "trust the development CA \(directory.authorityCertificatePath); "
                + "pins: certificate sha256/\(pins.certificateSHA256), public key sha256/\(pins.publicKeySHA256)"
            logger.notice("\(message)")
        case .files(let certificate, let key):
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificate)
                guard let leaf = chain.first else { throw TLSSetupError("\(certificate) holds no certificate") }
                tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
                )
                self.pins = try CertificatePins(certificateDER: try leaf.toDERBytes())
            } catch let error as TLSSetupError {
                throw error
            } catch {
                throw TLSSetupError("cannot load --tls-cert \(certificate) / --tls-key \(key): \(error)")
            }
        }
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = TLSHTTPChannel.applicationProtocols
        if settings.clientAuthentication != .none {
            let caFile = try settings.clientCAFile ?? { _ = try directory.authority(); return directory.authorityCertificatePath }()
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            } catch {
                throw TLSSetupError("cannot load the client CA \(caFile): \(error)")
            }
            // Listing the acceptable CAs lets a client (iOS included) pick the right identity.
            tls.sendCANameList = true
            tls.certificateVerification = settings.clientAuthentication == .required ? .noHostnameVerification : .optionalVerification
        }
        self.scheme = "https"
        self.tlsConfiguration = tls
        self.settings = settings
    }

    /// Whether connections may present client certificates (mutual TLS): the surfaces then read them
    /// for the journal, and the device API requires one.
    var readsClientCertificates: Bool {
        guard let settings else { return false }
        return settings.clientAuthentication != .none
    }

    /// The main listener's server builder: every connection guarded by `limits` (the connection cap,
    /// handshake, header and send timeouts, bounded shutdown), HTTP/1 and HTTP/2 closed after
    /// `idleTimeout` without traffic.
    func serverBuilder(
        router: Router<CollabRequestContext>, webSocket: WebSocketServerConfiguration, limits: ConnectionLimits, idleTimeout: Duration
    ) throws -> HTTPServerBuilder {
        let http1 = HTTP1Channel.Configuration(idleTimeout: TimeAmount(idleTimeout))
        guard let tlsConfiguration else {
            return .guardedHTTP1WebSocketUpgrade(webSocketRouter: router, configuration: .init(http1: http1, ws: webSocket), limits: limits)
        }
        let sslContext = try NIOSSLContext(configuration: tlsConfiguration)
        let webSocketResponder = router.buildResponder()
        return HTTPServerBuilder { responder in
            GuardedChildChannel(
                inner: TLSHTTPChannel(
                    sslContext: sslContext,
                    http1: HTTP1WebSocketUpgradeChannel(
                        responder: responder, webSocketResponder: webSocketResponder, configuration: .init(http1: http1, ws: webSocket)
                    ),
                    // An HTTP/2 connection without open streams is closed after the idle timeout, a
                    // stalled stream after the same; a graceful shutdown gives open streams 10 s.
                    http2: HTTP2Channel(
                        responder: responder,
                        configuration: .init(idleTimeout: idleTimeout, gracefulCloseTimeout: .seconds(10), streamConfiguration: http1)
                    )
                ),
                limits: limits
            )
        }
    }

    /// The second, plain-HTTP listener, when asked for: guarded like the main one, its connections
    /// counted under the same cap.
    func plainListener(
        router: Router<CollabRequestContext>, responder: StaticRoutesFirst, webSocket: WebSocketServerConfiguration, limits: ConnectionLimits,
        idleTimeout: Duration, host: String, logger: Logger
    ) -> (any Service)? {
        guard let port = settings?.plainHTTPPort else { return nil }
        let box = plainPort
        let http1 = HTTP1Channel.Configuration(idleTimeout: TimeAmount(idleTimeout))
        return Application(
            responder: responder,
            server: .guardedHTTP1WebSocketUpgrade(webSocketRouter: router, configuration: .init(http1: http1, ws: webSocket), limits: limits),
            configuration: .init(address: .hostname(host, port: port), serverName: "mock-collab"),
            onServerRunning: { channel in box.set(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }

    /// The plain-HTTP port once it listens (at once when there is none).
    func plainHTTPPort() async -> Int? {
        guard settings?.plainHTTPPort != nil else { return nil }
        return await plainPort.wait()
    }
}

/// A port learnt once, awaited by others.
final class ListeningPort: Sendable {
    private let state = Mutex<(port: Int?, waiters: [CheckedContinuation<Int, Never>])>((nil, []))

    func set(_ port: Int) {
        let waiters = state.withLock { state in
            state.port = port
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }

    func wait() async -> Int {
        await withCheckedContinuation { continuation in
            let port: Int? = state.withLock { state in
                if let port = state.port { return port }
                state.waiters.append(continuation)
                return nil
            }
            if let port { continuation.resume(returning: port) }
        }
    }
}
