public import CollabWire
public import Foundation

extension ControlClient {
    /// A snapshot of the whole state (`account` nil; super admins) or of one account (id or name), as
    /// the JSON file the server writes. It holds secrets (API keys, push keys, tokens, password hashes).
    public func exportSnapshot(account: String? = nil) async throws(CollabClientError) -> Data {
        let query = account.map { [("account", $0)] } ?? []
        let response = try await transport.raw("GET", "/_mock/v1/snapshot", query: query)
        try HTTPTransport.check(response, method: "GET", path: "/_mock/v1/snapshot")
        return response.body
    }

    /// Imports a snapshot: a server snapshot replaces everything, an account snapshot that account only.
    @discardableResult
    public func importSnapshot(_ snapshot: Data) async throws(CollabClientError) -> SnapshotImportResult {
        let response = try await transport.raw("POST", "/_mock/v1/snapshot", body: snapshot)
        try HTTPTransport.check(response, method: "POST", path: "/_mock/v1/snapshot")
        do {
            return try JSONDecoder().decode(SnapshotImportResult.self, from: response.body)
        } catch {
            throw CollabClientError(code: .decoding, status: response.status, message: "cannot decode the snapshot import result")
        }
    }
}
