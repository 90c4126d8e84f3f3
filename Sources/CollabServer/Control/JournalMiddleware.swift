import CollabCore
import CollabWire
import Hummingbird

/// Records every answered request in the journal: method, path, redacted query, status, duration and
/// the caller's account and, over mutual TLS, the client certificate's subject.
struct JournalMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    let environment: CollabEnvironment

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let timestamp = environment.clock.now()
        var status = 500
        defer {
            let elapsed = ContinuousClock.now - started
            let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
            let principal = context.trace.principal
            var entry = JournalEntry(
                id: 0, timestamp: timestamp, method: request.method.rawValue, path: request.uri.path,
                query: RequestJournal.redact(query: request.uri.query), status: status, durationMicros: micros,
                accountId: principal?.accountId, userId: principal?.userId,
                clientCertificate: context.trace.clientCertificate
            )
            entry.faultRuleId = context.trace.faultRuleId
            entry.fault = context.trace.faultAction
            // The connection was closed or reset: whatever the handler returned was never sent.
            if entry.fault == "EMPTY_RESPONSE" || entry.fault == "CONNECTION_RESET" { entry.status = 0 }
            environment.journal.record(entry)
        }
        let response = try await next(request, context)
        status = response.status.code
        return response
    }
}
