import CollabCore
public import CollabWire
import Foundation

/// One push in the outbox, as the control API lists it.
public typealias OutboxEntry = PushView

/// Which outbox entries a query or a wait is about.
public struct OutboxFilter: Sendable, Equatable {
    public var accountId: String?
    public var personId: String?
    public var deviceId: String?
    public var conversationId: String?
    public var kind: PushKind?
    public var transport: PushTransport?
    public var state: PushView.State?
    /// Only entries with an id above this.
    public var after: Int64?

    public init(
        accountId: String? = nil, personId: String? = nil, deviceId: String? = nil, conversationId: String? = nil, kind: PushKind? = nil,
        transport: PushTransport? = nil, state: PushView.State? = nil, after: Int64? = nil
    ) {
        self.accountId = accountId
        self.personId = personId
        self.deviceId = deviceId
        self.conversationId = conversationId
        self.kind = kind
        self.transport = transport
        self.state = state
        self.after = after
    }

    public func matches(_ entry: OutboxEntry) -> Bool {
        (accountId == nil || entry.accountId == accountId) && (personId == nil || entry.personId == personId)
            && (deviceId == nil || entry.deviceId == deviceId || entry.deviceRecordId == deviceId)
            && (conversationId == nil || entry.content.conversationId == conversationId) && (kind == nil || entry.kind == kind)
            && (transport == nil || entry.transport == transport) && (state == nil || entry.state == state) && (after == nil || entry.id > after!)
    }
}

extension OutboxEntry {
    /// The entry of `push` before composition: no payload yet, `RECORDED`, no attempts. For the
    /// encrypted versions the content leaves out the call's device credential: it is a bearer secret
    /// for its device, sealed in the payload, and the outbox is read by the account's admins.
    init(uncomposed push: ResolvedPush) {
        var content = push.content
        if push.version != .notEncrypted { content.callCredential = nil }
        self.init(
            id: 0, pushId: UUID().uuidString, accountId: push.accountId, personId: push.personId, deviceRecordId: push.deviceRecordId,
            deviceId: push.deviceId, kind: push.content.type, transport: push.transport, version: push.version, token: push.token, topic: push.topic,
            pushType: "alert", priority: 10, collapseId: nil, keyId: nil, content: content, payload: "", payloadBytes: 0, truncated: false,
            state: .recorded, attempts: [], createdAt: push.createdAt
        )
    }
}
