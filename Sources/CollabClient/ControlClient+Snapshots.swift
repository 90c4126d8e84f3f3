public import CollabWire
public import Foundation

extension ControlClient {
    /// A snapshot of the whole state (`account` nil; super admins) or of one account (id or name), as
    /// the JSON file the server writes.
    ///
    /// - Parameters:
    ///   - account: The account's id or name; `nil` for every account.
    ///   - includeSecrets: `true` asks for the credentials too (password hashes, sessions, client tokens,
    ///     notification keys, signing secrets, push credentials): only the control token and super
    ///     admins may, others get a `forbidden` error. `false` leaves them out. `nil` takes the server's
    ///     default for the caller: included for the control token, left out for everyone else.
    public func exportSnapshot(account: String? = nil, includeSecrets: Bool? = nil) async throws(CollabClientError) -> Data {
        var query = account.map { [("account", $0)] } ?? []
        if let includeSecrets { query.append(("secrets", includeSecrets ? "included" : "redacted")) }
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
