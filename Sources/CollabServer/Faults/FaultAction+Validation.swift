import CollabCore
import CollabWire

extension FaultAction {
    /// Every action type a rule may have.
    static let types = [
        "LATENCY", "ERROR", "PUSH_FAILURE", "EMPTY_RESPONSE", "CONNECTION_RESET", "TRUNCATED_BODY", "BANDWIDTH", "WEBSOCKET_CLOSE", "LIVE_EVENT_DROP",
        "LIVE_EVENT_DELAY", "WEBHOOK_FAILURE",
    ]

    /// Close codes a WebSocket close frame may not carry (RFC 6455 §7.4.1: reserved, or meant only for
    /// an endpoint's own reporting).
    static let reservedCloseCodes: Set<Int> = [1004, 1005, 1006, 1015]

    /// Checks the fields of `TRUNCATED_BODY`, `BANDWIDTH`, `WEBSOCKET_CLOSE` and `WEBHOOK_FAILURE`, and
    /// refuses an unknown type.
    /// - Throws: `badRequest` naming the field.
    mutating func checkConnectionAction() throws(CollabError) {
        switch type {
        case "TRUNCATED_BODY":
            if let bytes, !(0...(1 << 20)).contains(bytes) { throw .badRequest("action.bytes must be 0 to 1048576") }
            if let fraction, !(fraction >= 0 && fraction < 1) { throw .badRequest("action.fraction must be 0 to below 1") }
            if bytes != nil, fraction != nil { throw .badRequest("action.bytes and action.fraction exclude each other") }
        case "BANDWIDTH":
            guard let bytesPerSecond, (FaultRules.minBytesPerSecond...FaultRules.maxBytesPerSecond).contains(bytesPerSecond) else {
                throw .badRequest("action.bytesPerSecond must be \(FaultRules.minBytesPerSecond) to \(FaultRules.maxBytesPerSecond)")
            }
        case "WEBSOCKET_CLOSE":
            let code = closeCode ?? 1011
            guard (1000...4999).contains(code), !Self.reservedCloseCodes.contains(code) else {
                throw .badRequest("action.closeCode must be 1000 to 4999, not the reserved 1004, 1005, 1006 or 1015")
            }
            closeCode = code
            // A close frame's payload is at most 125 bytes, two of them the code.
            if let reason, reason.utf8.count > 123 { throw .badRequest("action.reason is longer than 123 bytes") }
            if let afterEvents, !(0...100_000).contains(afterEvents) { throw .badRequest("action.afterEvents must be 0 to 100000") }
        case "WEBHOOK_FAILURE":
            if timeout == true {
                if status != nil { throw .badRequest("action.status and action.timeout exclude each other") }
                if let millis, !(0...FaultRules.maxLatencyMillis).contains(millis) {
                    throw .badRequest("action.millis must be 0 to \(FaultRules.maxLatencyMillis)")
                }
            } else {
                if let status, !(400...599).contains(status) { throw .badRequest("action.status must be 400 to 599") }
                status = status ?? 503
            }
        default:
            throw .badRequest("action.type must be one of \(Self.types.joined(separator: ", "))")
        }
    }
}

extension FaultRule {
    /// Live rules match the live event sockets (`MOBILE` or `AGENT`); webhook rules an account only.
    func checkLiveAndWebhookMatch() throws(CollabError) {
        switch FaultRules.kind(of: action.type) {
        case .liveConnection, .liveEvent:
            if let surface = match.surface, surface == "WEB_API" { throw .badRequest("match.surface must be MOBILE or AGENT for live event rules") }
        case .webhook:
            if match.surface != nil || match.method != nil || match.path != nil || match.deviceId != nil || match.clientId != nil {
                throw .badRequest("match: WEBHOOK_FAILURE rules match by account only")
            }
        case .request, .push:
            break
        }
    }
}
