import CollabCore
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Synchronization

/// The per-request context: Hummingbird's core storage plus who is calling, as the surface's
/// ``AuthenticationMiddleware`` resolved it once.
struct CollabRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller; anonymous until the authentication middleware says otherwise.
    public var principal: Principal = .anonymous
    /// Why the credentials the caller presented were refused, if they were. ``AccessMiddleware``
    /// answers with it, inside the journal, so a refused request is recorded like any other.
    @Boxed public var authenticationFailure: CollabError? = nil
    /// The session token the caller presented, if any (for logout).
    public var sessionToken: String?
    /// The mobile client token the caller presented, if any.
    public var clientToken: String?
    /// The started mobile client behind `clientToken`.
    @Boxed public var client: ClientSession? = nil
    /// What an incoming call's device credential names and whose side it is for, when the caller
    /// presented one.
    @Boxed public var callCredential: CheckedCallCredential? = nil
    /// Whether the surface takes the account's token cookie (`jwt.cookie`) where a client starts.
    public var takesAccountCookie = false
    /// Credentials a route checked itself once it knew the account (the account's token cookie at a
    /// client start), for the journal.
    let credentialNote = CredentialNote()
    /// The subject of the client certificate the connection presented (mutual TLS), for the journal.
    public var clientCertificate: String?
    /// A `BANDWIDTH` fault rule's cap, bytes per second, for what the request's WebSocket receives.
    public var bandwidthCap: Int?
    /// When the request arrived: the journal's durations count from here.
    let receivedAt = ContinuousClock.now
    /// Hands a WebSocket upgrade its handler.
    let webSocket = WebSocketHandlerReference<CollabRequestContext>()
    /// The connection (or HTTP/2 stream) the request came on: a refused WebSocket upgrade answers
    /// through it, mutual TLS reads the client certificate from it.
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }
}

/// A large optional field of the request context, kept out of line: most requests leave it `nil`, and
/// the context each middleware passes on stays small (a started client, a dozen strings, stored inline
/// was copied field by field at every step of the Web API read).
@propertyWrapper
struct Boxed<Wrapped: Sendable>: Sendable {
    private final class Box: Sendable {
        let value: Wrapped
        init(_ value: Wrapped) { self.value = value }
    }

    private var box: Box?

    init(wrappedValue: Wrapped?) {
        box = wrappedValue.map(Box.init)
    }

    var wrappedValue: Wrapped? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }
}

/// Which credential a route authenticated a request with, and whose it was, when the surface's
/// middleware could not (it needs the account, which the body names: a client start's API key, an agent's
/// login): the journal records them, never a credential's value.
final class CredentialNote: Sendable {
    private struct Noted {
        var text: String?
        var accountId: String?
        var userId: String?
        var unproven = false
    }

    private let noted = Mutex(Noted())

    /// What authenticated the request, e.g. `cookie SSO_TOKEN` (never the value).
    var text: String? { noted.withLock { $0.text } }
    /// The account (and user) the route found the caller in.
    var caller: (accountId: String?, userId: String?) { noted.withLock { ($0.accountId, $0.userId) } }
    /// Whether the account was named by a credential that proved nothing (a username with a wrong password).
    var unproven: Bool { noted.withLock { $0.unproven } }

    /// Notes a cookie by its name.
    func cookie(_ name: String) {
        noted.withLock { $0.text = "cookie \(name)" }
    }

    /// Notes the account (and user) a route found the caller in, for a request its middleware let
    /// through unauthenticated; `unproven` when only a credential that proved nothing named it.
    func identified(accountId: String, userId: String? = nil, unproven: Bool = false) {
        noted.withLock { noted in
            noted.accountId = accountId
            noted.userId = userId
            noted.unproven = unproven
        }
    }
}
