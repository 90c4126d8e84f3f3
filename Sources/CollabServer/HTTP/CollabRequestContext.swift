import CollabCore
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The per-request context: Hummingbird's core storage plus who is calling.
struct CollabRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller; anonymous until the authentication middleware says otherwise.
    public var principal: Principal = .anonymous
    /// The session token the caller presented, if any (for logout).
    public var sessionToken: String?
    /// The mobile client token the caller presented, if any.
    public var clientToken: String?
    /// The started mobile client behind `clientToken`, resolved once by the authentication middleware.
    public var client: ClientSession?
    /// Carries the caller out to the journal.
    let trace = RequestTrace()
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
