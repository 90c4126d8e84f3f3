public import CollabTLS
public import Foundation
import Hummingbird
import HummingbirdHTTP2
import JWTKit
public import Logging
import NIOCore
import NIOFoundationCompat
import NIOSSL
public import ServiceLifecycle
import Synchronization

/// One push the simulator accepted.
public struct SimulatedPush: Sendable, Codable, Equatable {
    public var apnsId: String
    public var token: String
    public var topic: String
    public var pushType: String
    public var priority: Int?
    public var expiration: Int64?
    public var collapseId: String?
    /// The provider token's `kid`; empty for a push authenticated by certificate.
    public var keyId: String
    /// `token` (a provider token) or `certificate` (the connection's client certificate).
    public var authentication: String
    public var payload: String
    public var receivedAt: Int64
}

/// Configuration of the simulator.
public struct APNsSimulatorConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The team id provider tokens must be issued by (`iss`); `nil` accepts any.
    public var teamId: String?
    /// ES256 public keys (PEM) by key id that provider tokens may be signed with.
    public var keys: [String: String]
    /// Bundle ids pushes may target (`apns-topic` without `.voip`); empty accepts any.
    public var topics: Set<String>
    /// How many accepted pushes are kept.
    public var capacity: Int
    /// The age after which a provider token is refused with ExpiredProviderToken (APNs: one hour).
    public var providerTokenMaxAge: TimeInterval

    public init(
        host: String = "127.0.0.1", port: Int = 0, teamId: String? = nil, keys: [String: String], topics: Set<String> = [], capacity: Int = 10_000,
        providerTokenMaxAge: TimeInterval = 3600
    ) {
        self.host = host
        self.port = port
        self.teamId = teamId
        self.keys = keys
        self.topics = topics
        self.capacity = capacity
        self.providerTokenMaxAge = providerTokenMaxAge
    }
}

/// An APNs-compatible HTTP/2 endpoint over TLS that validates pushes like Apple's provider API and
/// records what it accepted.
///
/// Senders authenticate like with Apple: with a provider token, or with a certificate the connection
/// presents (the simulator issues Apple-shaped ones, signed by its own authority:
/// ``issueCertificate(bundleId:kind:teamId:)``), which then decides the topics it may push to.
///
/// `POST /3/device/<token>` checks, in Apple's order of concern: the device token, the sender (a
/// certificate the simulator issued, else a provider token: present, signed with a known key, issued
/// by the team, at most an hour old), `apns-push-type`,
/// `apns-topic` (allowed bundle, `.voip` exactly for VoIP, one of the certificate's topics), `apns-priority` (5 for background),
/// `apns-expiration`, `apns-collapse-id` (64 bytes), and the payload (JSON, within 4096 bytes, 5120
/// for VoIP). Tokens marked unregistered answer 410. Errors carry Apple's `{"reason": …}` body.
///
/// `GET /_sim/pushes` lists accepted pushes, `DELETE /_sim/pushes` forgets them,
/// `POST /_sim/unregister {"token": …}` marks a token unregistered, and
/// `POST /_sim/fail-next {"count": 2, "status": 503, "reason": "ServiceUnavailable"}` fails the next pushes.
public final class APNsSimulator: Service {
    public let configuration: APNsSimulatorConfiguration
    public let certificate: TLSIdentity
    /// The authority the simulator signs senders' APNs certificates with (Apple's WWDR in the original).
    public let certificateAuthority: TLSIdentity
    private let logger: Logger
    private let state = Mutex(State())
    private let now: @Sendable () -> Date
    /// Provider-token verification keys, built once.
    private let verifier = JWTKeyCollection()
    private let verifierReady = Mutex(false)

    private struct State {
        var failures: [(status: Int, reason: String)] = []
        var pushes: [SimulatedPush] = []
        var unregistered: [String: Int64] = [:]
        var port: Int?
        var waiters: [CheckedContinuation<Int, Never>] = []
    }

    public init(configuration: APNsSimulatorConfiguration, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.configuration = configuration
        self.certificate = try TLSIdentity.selfSigned(commonName: "mock-collab apns-sim")
        self.certificateAuthority = try CertificateIssuer.makeAuthority(commonName: "mock-collab apns-sim certification authority", now: now())
        self.logger = logger
        self.now = now
    }

    /// An APNs certificate for `bundleId`, as Apple issues them, that this simulator accepts: a sender
    /// presents it on its connection instead of sending provider tokens.
    public func issueCertificate(bundleId: String, kind: APNsCertificateKind, teamId: String? = nil) throws -> TLSIdentity {
        try APNsCertificates.make(bundleId: bundleId, kind: kind, teamId: teamId, authority: certificateAuthority, now: now())
    }

    /// Pushes accepted so far.
    public var pushes: [SimulatedPush] { state.withLock { $0.pushes } }

    /// Marks a device token unregistered: later pushes to it answer 410.
    public func markUnregistered(_ token: String) {
        let timestamp = Int64(now().timeIntervalSince1970 * 1000)
        state.withLock { $0.unregistered[token.lowercased()] = timestamp }
    }

    /// Makes the next `count` well-formed pushes fail with `status` and `reason` (e.g. 503 ServiceUnavailable, 429 TooManyRequests).
    public func failNext(_ count: Int, status: Int, reason: String) {
        state.withLock { $0.failures += Array(repeating: (status, reason), count: count) }
    }

    /// Waits until the simulator listens and returns its port.
    public func waitUntilListening() async -> Int {
        await withCheckedContinuation { continuation in
            let port: Int? = state.withLock { state in
                if let port = state.port { return port }
                state.waiters.append(continuation)
                return nil
            }
            if let port { continuation.resume(returning: port) }
        }
    }

    public func run() async throws {
        let router = Router(context: SimulatorRequestContext.self)
        // What Apple answers outside `POST /3/device/<token>`: 405 MethodNotAllowed for another method
        // on that path, 404 BadPath for any other path, each with its reason body.
        router.add(middleware: APNsPathRefusals())
        router.post("3/device/:token") { request, context -> Response in
            let token = context.parameters.get("token") ?? ""
            let body = try await request.body.collect(upTo: 64 * 1024)
            // Apple speaks HTTP/2 only: an HTTP/1.1 sender would not get this far there, so it is told why here.
            guard context.isHTTP2Stream else { return self.reject(.httpVersionNotSupported, "HTTP2Required") }
            let certificate = await PeerCertificate.der(on: context.channel)
            return await self.handle(request: request, token: token, body: Data(buffer: body), certificate: certificate)
        }
        router.get("_sim/pushes") { _, _ -> Response in
            let data = (try? JSONEncoder().encode(self.pushes)) ?? Data("[]".utf8)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.delete("_sim/pushes") { _, _ -> Response in
            self.state.withLock { $0.pushes.removeAll() }
            return Response(status: .noContent)
        }
        router.post("_sim/fail-next") { request, _ -> Response in
            struct Body: Decodable {
                var count: Int
                var status: Int
                var reason: String
            }
            let data = try await request.body.collect(upTo: 4096)
            guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer: data)), body.count >= 0, body.count <= 1000 else {
                return Response(status: .badRequest)
            }
            self.failNext(body.count, status: body.status, reason: body.reason)
            return Response(status: .noContent)
        }
        router.post("_sim/unregister") { request, _ -> Response in
            struct Body: Decodable { var token: String }
            let data = try await request.body.collect(upTo: 4096)
            guard let body = try? JSONDecoder().decode(Body.self, from: Data(buffer: data)) else {
                return Response(status: .badRequest)
            }
            self.markUnregistered(body.token)
            return Response(status: .noContent)
        }
        var tls = try certificate.serverConfiguration()
        // Certificates are optional: token senders present none. A presented one must be ours.
        tls.certificateVerification = .optionalVerification
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificateAuthority.certificatePEM.utf8)))
        let app = Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "mock-collab-apns-sim"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? configuration.port
                let waiters = state.withLock { state in
                    state.port = port
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume(returning: port) }
            },
            logger: logger
        )
        try await app.run()
    }

    private func reject(_ status: HTTPResponse.Status, _ reason: String, timestamp: Int64? = nil) -> Response {
        var object: [String: Any] = ["reason": reason]
        if let timestamp { object["timestamp"] = timestamp }
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    struct ProviderClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// The `kid` of a JWT's header.
    static func keyId(of jwt: String) -> String? {
        part(0, of: jwt)?["kid"] as? String
    }

    /// Whether a JWT's `iat` is a whole number (Apple's provider tokens carry whole seconds).
    static func hasWholeSecondIssuedAt(_ jwt: String) -> Bool {
        guard let iat = part(1, of: jwt)?["iat"] as? NSNumber else { return false }
        let seconds = iat.doubleValue
        return seconds.rounded(.towardZero) == seconds
    }

    /// The JSON object of a JWT's header (0) or claims (1), undecoded and unverified.
    private static func part(_ index: Int, of jwt: String) -> [String: Any]? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[index].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    private static let pushTypes: Set<String> = [
        "alert", "background", "voip", "complication", "fileprovider", "mdm", "liveactivity", "location", "pushtotalk",
    ]

    private func handle(request: Request, token rawToken: String, body: Data, certificate: [UInt8]?) async -> Response {
        let token = rawToken.lowercased()
        guard token.count.isMultiple(of: 2), (16...400).contains(token.count), token.allSatisfy(\.isHexDigit) else {
            return reject(.badRequest, "BadDeviceToken")
        }
        // The sender: a certificate (its topics are all it may push to), else a provider token.
        var certificateTopics: Set<String>?
        var keyId = ""
        if let certificate {
            guard let topics = APNsCertificates.topics(ofDER: certificate) else { return reject(.forbidden, "BadCertificate") }
            certificateTopics = topics
        } else {
            switch await verifyProviderToken(request) {
            case .success(let kid): keyId = kid
            case .failure(let refusal): return reject(.forbidden, refusal.reason)
            }
        }
        // Headers.
        if let apnsId = request.headers[.init("apns-id")!], UUID(uuidString: apnsId) == nil { return reject(.badRequest, "BadMessageId") }
        guard let pushType = request.headers[.init("apns-push-type")!], Self.pushTypes.contains(pushType) else {
            return reject(.badRequest, "InvalidPushType")
        }
        guard let topic = request.headers[.init("apns-topic")!], !topic.isEmpty else { return reject(.badRequest, "MissingTopic") }
        let isVoIPTopic = topic.hasSuffix(".voip")
        if (pushType == "voip") != isVoIPTopic { return reject(.badRequest, "TopicDisallowed") }
        let bundle = isVoIPTopic ? String(topic.dropLast(".voip".count)) : topic
        if !configuration.topics.isEmpty, !configuration.topics.contains(bundle) { return reject(.badRequest, "TopicDisallowed") }
        // Apple refuses a topic the certificate does not name (a VoIP Services certificate: `.voip` only).
        if let certificateTopics, !certificateTopics.contains(topic) { return reject(.badRequest, "TopicDisallowed") }
        var priority: Int?
        if let text = request.headers[.init("apns-priority")!] {
            guard let value = Int(text), [1, 5, 10].contains(value) else { return reject(.badRequest, "BadPriority") }
            priority = value
        }
        if pushType == "background", priority == 10 { return reject(.badRequest, "BadPriority") }
        var expiration: Int64?
        if let text = request.headers[.init("apns-expiration")!] {
            guard let value = Int64(text), value >= 0 else { return reject(.badRequest, "BadExpirationDate") }
            expiration = value
        }
        let collapseId = request.headers[.init("apns-collapse-id")!]
        if let collapseId, collapseId.utf8.count > 64 { return reject(.badRequest, "BadCollapseId") }
        // Payload.
        guard !body.isEmpty else { return reject(.badRequest, "PayloadEmpty") }
        let limit = pushType == "voip" ? 5120 : 4096
        guard body.count <= limit else { return reject(.contentTooLarge, "PayloadTooLarge") }
        guard (try? JSONSerialization.jsonObject(with: body)) is [String: Any] else { return reject(.badRequest, "BadPayload") }
        if let unregisteredAt = state.withLock({ $0.unregistered[token] }) { return reject(.gone, "Unregistered", timestamp: unregisteredAt) }
        if let failure = state.withLock({ $0.failures.isEmpty ? nil : $0.failures.removeFirst() }) {
            return reject(HTTPResponse.Status(code: failure.status), failure.reason)
        }
        let apnsId = request.headers[.init("apns-id")!] ?? UUID().uuidString
        let push = SimulatedPush(
            apnsId: apnsId, token: token, topic: topic, pushType: pushType, priority: priority, expiration: expiration, collapseId: collapseId,
            keyId: keyId, authentication: certificateTopics == nil ? "token" : "certificate", payload: String(decoding: body, as: UTF8.self),
            receivedAt: Int64(now().timeIntervalSince1970 * 1000)
        )
        state.withLock { state in
            state.pushes.append(push)
            if state.pushes.count > configuration.capacity { state.pushes.removeFirst(state.pushes.count - configuration.capacity) }
        }
        return Response(status: .ok, headers: [.init("apns-id")!: apnsId])
    }

    /// Why a provider token was refused: Apple's reason.
    private struct Refusal: Error {
        var reason: String
    }

    /// Checks the request's provider token: present, signed with a known key, issued by the team, at most
    /// `providerTokenMaxAge` old. Returns its `kid`.
    private func verifyProviderToken(_ request: Request) async -> Result<String, Refusal> {
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") else {
            return .failure(Refusal(reason: "MissingProviderToken"))
        }
        let jwt = String(authorization.dropFirst("bearer ".count))
        if !verifierReady.withLock({ $0 }) {
            for (kid, pem) in configuration.keys {
                guard let key = try? ES256PublicKey(pem: pem) else { continue }
                await verifier.add(ecdsa: key, kid: JWKIdentifier(string: kid))
            }
            verifierReady.withLock { $0 = true }
        }
        // A key id the simulator does not know is refused before the signature (Apple looks the key up by it).
        guard let kid = Self.keyId(of: jwt), configuration.keys[kid] != nil else { return .failure(Refusal(reason: "InvalidProviderToken")) }
        // Apple takes `iat` as whole seconds since the epoch; a fraction is refused.
        guard Self.hasWholeSecondIssuedAt(jwt) else { return .failure(Refusal(reason: "InvalidProviderToken")) }
        guard let claims = try? await verifier.verify(jwt, as: ProviderClaims.self) else { return .failure(Refusal(reason: "InvalidProviderToken")) }
        if let team = configuration.teamId, claims.iss.value != team { return .failure(Refusal(reason: "InvalidProviderToken")) }
        let age = now().timeIntervalSince(claims.iat.value)
        if age > configuration.providerTokenMaxAge { return .failure(Refusal(reason: "ExpiredProviderToken")) }
        if age < -600 { return .failure(Refusal(reason: "InvalidProviderToken")) }
        return .success(kid)
    }
}

/// The simulator's request context: the connection a request came on, for the sender's certificate.
struct SimulatorRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

extension SimulatorRequestContext {
    /// Whether the request came on an HTTP/2 stream (not an HTTP/1.1 connection): a stream's channel is
    /// a child of its connection's, itself a child of the listening socket's; an HTTP/1.1 request's is
    /// the connection's.
    var isHTTP2Stream: Bool { channel.parent?.parent != nil }
}

/// Apple's answers to requests no route takes: another method on `/3/device/<token>` is 405
/// MethodNotAllowed, any other path 404 BadPath, each with the `{"reason": …}` body.
struct APNsPathRefusals: RouterMiddleware {
    typealias Context = SimulatorRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            // Read what was sent (bounded), so the stream ends cleanly before the answer.
            _ = try? await request.body.collect(upTo: 64 * 1024)
            let onDevicePath = request.uri.path.hasPrefix("/3/device/")
            let data = Data(#"{"reason":"\#(onDevicePath ? "MethodNotAllowed" : "BadPath")"}"#.utf8)
            return Response(
                status: onDevicePath ? .methodNotAllowed : .notFound, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }
}
