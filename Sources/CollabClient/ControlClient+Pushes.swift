public import CollabWire
import Foundation

extension ControlClient {
    /// The push outbox, newest last, filtered by the outbox's query parameters (`kind`, `transport`,
    /// `conversationId`, `personId`, `deviceId`, `state`, `after`, `account`).
    public func pushes(_ filter: [(String, String)] = []) async throws(CollabClientError) -> [PushView] {
        let page: PushPage = try await transport.send("GET", "/_mock/v1/pushes", query: filter)
        return page.pushes
    }

    /// Empties the outbox and drops every push still queued or waiting for its next attempt (super
    /// admin or control token).
    public func clearPushes() async throws(CollabClientError) {
        try await transport.sendWithoutResult("DELETE", "/_mock/v1/pushes")
    }

    /// Waits for the first push matching the filter (e.g. `kind`, `conversationId`): what a CI test uses
    /// to play the device that receives it.
    /// - Throws: ``CollabClientError`` with `.notFound` when none arrived within `timeoutMillis`.
    public func waitForPush(
        kind: String? = nil, conversationId: String? = nil, _ filter: [(String, String)] = [], timeoutMillis: Int = 10_000
    ) async throws(CollabClientError) -> PushView {
        var query = filter
        if let kind { query.append(("kind", kind)) }
        if let conversationId { query.append(("conversationId", conversationId)) }
        query.append(("timeoutMs", String(timeoutMillis)))
        return try await transport.send("GET", "/_mock/v1/pushes/wait", query: query)
    }
}

extension PushView {
    /// The payload as the `userInfo` dictionary an app receives (APNs and PushKit alike); empty when the
    /// payload is not a JSON object.
    public var userInfo: [AnyHashable: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] else { return [:] }
        return object
    }
}
