import CollabCore
import Hummingbird

/// The per-request context: Hummingbird's core storage plus who is calling.
struct CollabRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller; anonymous until the authentication middleware says otherwise.
    public var principal: Principal = .anonymous
    /// The session token the caller presented, if any (for logout).
    public var sessionToken: String?
    /// Carries the caller out to the journal.
    let trace = RequestTrace()

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}
