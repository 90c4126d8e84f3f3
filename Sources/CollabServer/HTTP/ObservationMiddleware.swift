import CollabCore
import CollabWire
import Hummingbird

/// What every request of a surface passes once it is known who calls: the request journal, the
/// request metrics (``RequestMetrics``) and the fault rules in force.
///
/// It sits after authentication, so the journal names the caller and a fault rule can match an
/// account, a device or a client, and outside the error middleware, so it records and, for a
/// truncating rule, cuts the answer as it is sent — an error's body included.
struct ObservationMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    let environment: CollabEnvironment
    let surface: Surface
    private let metrics = RequestMetrics()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let timestamp = environment.clock.now()
        let injection = fault(for: request, context: context)
        var status = 500
        defer { record(request, context: context, timestamp: timestamp, status: status, fault: injection) }
        let response = try await metrics.measure(request, context: context, since: context.receivedAt) {
            try await answer(request, context: context, under: injection, next: next)
        }
        status = response.status.code
        return response
    }

    /// The journal entry: method, path, redacted query, status, duration since the request arrived,
    /// the caller's account, the client certificate's subject, the cookie a route authenticated it with
    /// (its name) and the fault injected, if any.
    private func record(_ request: Request, context: Context, timestamp: Timestamp, status: Int, fault: FaultRules.Injection?) {
        let elapsed = ContinuousClock.now - context.receivedAt
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        let noted: (accountId: String?, userId: String?) = context.principal.accountId == nil ? context.credentialNote.caller : (nil, nil)
        var entry = JournalEntry(
            id: 0, timestamp: timestamp, method: request.method.rawValue, path: request.uri.path,
            query: RequestJournal.redact(query: request.uri.query), status: status, durationMicros: micros,
            accountId: context.principal.accountId ?? noted.accountId, userId: context.principal.userId ?? noted.userId,
            clientCertificate: context.clientCertificate
        )
        entry.authenticatedBy = context.credentialNote.text
        entry.faultRuleId = fault?.ruleId
        entry.fault = fault?.actionType
        // The connection was closed or reset: whatever the handler returned was never sent.
        if entry.fault == "EMPTY_RESPONSE" || entry.fault == "CONNECTION_RESET" { entry.status = 0 }
        environment.journal.record(entry, unproven: context.principal.accountId == nil && context.credentialNote.unproven)
    }
}
