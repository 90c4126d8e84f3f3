import CollabCore
import Synchronization

/// What inner middleware learns about a request that outer middleware (the journal) reports.
final class RequestTrace: Sendable {
    private let principalBox = Mutex<Principal?>(nil)

    var principal: Principal? {
        get { principalBox.withLock { $0 } }
        set { principalBox.withLock { $0 = newValue } }
    }

    private let clientCertificateBox = Mutex<String?>(nil)

    /// The subject of the client certificate the connection presented (mutual TLS).
    var clientCertificate: String? {
        get { clientCertificateBox.withLock { $0 } }
        set { clientCertificateBox.withLock { $0 = newValue } }
    }

    private let faultRuleBox = Mutex<String?>(nil)

    /// The fault rule injected into the request, if any.
    var faultRuleId: String? {
        get { faultRuleBox.withLock { $0 } }
        set { faultRuleBox.withLock { $0 = newValue } }
    }

    private let faultActionBox = Mutex<String?>(nil)

    /// The action of the fault rule injected into the request (`EMPTY_RESPONSE`, …), if any.
    var faultAction: String? {
        get { faultActionBox.withLock { $0 } }
        set { faultActionBox.withLock { $0 = newValue } }
    }

    private let bandwidthBox = Mutex<Int?>(nil)

    /// A `BANDWIDTH` rule's cap, bytes per second, for what the request's WebSocket receives (co-browsing frames).
    var bandwidthCap: Int? {
        get { bandwidthBox.withLock { $0 } }
        set { bandwidthBox.withLock { $0 = newValue } }
    }

    init() {}
}
