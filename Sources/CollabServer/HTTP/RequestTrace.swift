import CollabCore
import Synchronization

/// What inner middleware learns about a request that outer middleware (the journal) reports.
final class RequestTrace: Sendable {
    private let principalBox = Mutex<Principal?>(nil)

    var principal: Principal? {
        get { principalBox.withLock { $0 } }
        set { principalBox.withLock { $0 = newValue } }
    }

    init() {}
}
