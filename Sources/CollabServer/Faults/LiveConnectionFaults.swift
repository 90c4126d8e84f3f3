import CollabCore
import CollabWire
import Hummingbird
import Synchronization

/// The fault rules of one live event WebSocket: `WEBSOCKET_CLOSE` (asked when it connects and, while
/// no close is pending, before each event), `LIVE_EVENT_DROP` and `LIVE_EVENT_DELAY` (asked for every
/// event before it is sent).
///
/// Every injection is a journal entry of its own: method `WS`, the socket's path, the rule's id and
/// action, and the event in `query` (`eventId=…&type=…`).
final class LiveConnectionFaults: Sendable {
    /// How the connection is to be closed.
    struct Close: Sendable {
        var ruleId: String
        var code: Int
        var reason: String
        var afterEvents: Int
    }

    private let environment: CollabEnvironment
    private let request: FaultRules.Request
    private let userId: String?
    /// The close chosen on connect, and the events sent since.
    private let state: Mutex<(close: Close?, sent: Int)>

    /// Asks the rules about a connection of `audience` on `path`; a `WEBSOCKET_CLOSE` rule is drawn now.
    init(environment: CollabEnvironment, audience: EventAudience, path: String, client: ClientSession?) {
        self.environment = environment
        self.userId = audience.userId
        self.request = FaultRules.Request(
            surface: audience.isAgent ? "AGENT" : "MOBILE", method: "GET", path: path, accountId: audience.accountId, deviceId: client?.deviceId,
            clientId: client?.clientId
        )
        var close: Close?
        if case .webSocketClose(let ruleId, let code, let reason, let afterEvents)? = environment.faults.injection(
            for: request, now: environment.clock.now(), kind: .liveConnection
        ) {
            close = Close(ruleId: ruleId, code: code, reason: reason, afterEvents: afterEvents)
        }
        state = Mutex((close, 0))
    }

    /// The close to make before any event is sent (a rule with `afterEvents` 0), journaled.
    func closeOnConnect() -> Close? {
        guard let close = state.withLock({ $0.close }), close.afterEvents == 0 else { return nil }
        journal(ruleId: close.ruleId, action: "WEBSOCKET_CLOSE", query: "closeCode=\(close.code)")
        return close
    }

    /// What to do with an item about to be sent.
    enum Decision: Sendable {
        case send
        /// Not sent (`LIVE_EVENT_DROP`).
        case drop
        /// Close the socket before sending it (`WEBSOCKET_CLOSE` drawn now, for no further events):
        /// the item is replayed after the client reconnects with its `lastEventId`.
        case close(Close)
    }

    /// Whether `item` is sent: a `WEBSOCKET_CLOSE` rule is drawn for a connection that has none
    /// pending (so a rule added while a socket is open catches it at its next event); a dropped event
    /// is not sent; a delayed one is, after its delay.
    func decide(_ item: EventHub.Subscription.Item) async -> Decision {
        guard case .event(let published) = item else { return .send }
        if state.withLock({ $0.close == nil }),
            case .webSocketClose(let ruleId, let code, let reason, let afterEvents)? = environment.faults.injection(
                for: request, now: environment.clock.now(), kind: .liveConnection
            )
        {
            let close = Close(ruleId: ruleId, code: code, reason: reason, afterEvents: afterEvents)
            if afterEvents == 0 {
                journal(ruleId: ruleId, action: "WEBSOCKET_CLOSE", query: "closeCode=\(code)&beforeEventId=\(published.id)")
                return .close(close)
            }
            state.withLock { state in
                state.close = close
                state.sent = 0
            }
        }
        var request = self.request
        request.eventType = published.event.kind.rawValue
        switch environment.faults.injection(for: request, now: environment.clock.now(), kind: .liveEvent) {
        case .dropEvent(let ruleId)?:
            journal(ruleId: ruleId, action: "LIVE_EVENT_DROP", query: "eventId=\(published.id)&type=\(published.event.kind.rawValue)")
            return .drop
        case .delayEvent(let ruleId, let millis)?:
            journal(
                ruleId: ruleId, action: "LIVE_EVENT_DELAY", query: "eventId=\(published.id)&type=\(published.event.kind.rawValue)&millis=\(millis)")
            try? await Task.sleep(for: .milliseconds(millis))
            return .send
        default:
            return .send
        }
    }

    /// Counts a sent item; the close that is due after it, journaled, if any.
    func closeDue(after item: EventHub.Subscription.Item) -> Close? {
        guard case .event = item else { return nil }
        let due: Close? = state.withLock { state in
            state.sent += 1
            guard let close = state.close, close.afterEvents > 0, state.sent >= close.afterEvents else { return nil }
            state.close = nil
            return close
        }
        if let due { journal(ruleId: due.ruleId, action: "WEBSOCKET_CLOSE", query: "closeCode=\(due.code)&afterEvents=\(due.afterEvents)") }
        return due
    }

    private func journal(ruleId: String, action: String, query: String) {
        environment.journalFault(
            ruleId: ruleId, action: action, method: "WS", path: request.path, query: query, status: 101, accountId: request.accountId, userId: userId)
    }
}
