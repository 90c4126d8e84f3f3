public import AsyncHTTPClient
import CollabClient
import CollabCore
import CollabWire

/// Reads one account of a running Web API v4 server (the vendor's or MockCollab) and turns it into a
/// seed: named areas, users, declared entities (teams, templates, canned responses, labels), bots,
/// webhook registrations and the account's configuration.
///
/// Only operations of the vendor's public spec are used, so the same export works against the real
/// server. Secrets are never read into the seed: passwords cannot be read at all, API keys are left
/// out, and the secrets of webhooks and bots are dropped. A kind the server refuses (any non-2xx) is
/// skipped and reported, never fatal; only the account itself must be readable.
public struct SeedExporter: Sendable {
    public let options: SeedExportOptions
    /// Called with each line of progress (the command prints them to stderr).
    public let progress: @Sendable (String) -> Void

    /// - Parameters:
    ///   - options: What to read, from where, as whom.
    ///   - progress: Receives a line per step.
    public init(options: SeedExportOptions, progress: @escaping @Sendable (String) -> Void = { _ in }) {
        self.options = options
        self.progress = progress
    }

    /// Reads the account and builds its seed.
    /// - Parameter client: The HTTP client to send with.
    /// - Throws: ``SeedExportError`` when the server cannot be reached, the credentials are refused, or
    ///   the account cannot be read.
    public func export(client: HTTPClient = .shared) async throws(SeedExportError) -> SeedExportResult {
        let transport = HTTPTransport(baseURL: options.baseURL, credentials: .none, client: client, tls: options.tls)
        let pager = WebAPIPager(transport: transport, prefix: options.prefix, pageSize: options.pageSize)
        let session = try await signIn(transport: transport, pager: pager)
        let logout = JSONValue.object([:])
        do throws(SeedExportError) {
            let result = try await read(pager: pager)
            if session { _ = try? await pager.call("POST", "/authenticator/logout", body: logout) }
            return result
        } catch {
            if session { _ = try? await pager.call("POST", "/authenticator/logout", body: logout) }
            throw error
        }
    }

    /// Sets the transport's credentials; logs in and switches account when another account is named
    /// (basic auth cannot switch). Answers whether a session was opened (to log out at the end).
    private func signIn(transport: HTTPTransport, pager: WebAPIPager) async throws(SeedExportError) -> Bool {
        switch options.credentials {
        case .bearer(let token):
            transport.setCredentials(.bearer(token))
        case .user(let username, let password):
            guard options.account != nil else {
                transport.setCredentials(.basic(username: username, password: password))
                return false
            }
            progress("logging in as \(username)")
            _ = try await pager.call("POST", "/authenticator/login", body: .object(["username": .string(username), "password": .string(password)]))
            guard transport.sessionToken != nil else {
                throw SeedExportError(status: nil, "the server answered the login without a session cookie")
            }
        }
        guard let name = options.account else { return false }
        let current = try await pager.call("GET", "/accounts/getCurrentAccount")
        if current["name"]?.stringValue != name {
            let target = try await pager.call("GET", "/accounts/getByName", query: [("name", name)])
            guard let id = target["id"]?.stringValue else {
                throw SeedExportError(status: nil, "the server answered no id for the account '\(name)'")
            }
            progress("switching to account \(name)")
            _ = try await pager.call("POST", "/authenticator/switchToAccount", body: .object(["accountId": .string(id)]))
        }
        return transport.sessionToken != nil
    }

    private func read(pager: WebAPIPager) async throws(SeedExportError) -> SeedExportResult {
        let accountObject = try await pager.call("GET", "/accounts/getCurrentAccount", query: [("expand", "configuration,metadata")])
        guard let name = accountObject["name"]?.stringValue else {
            throw SeedExportError(status: nil, "the server answered an account without a name")
        }
        progress("exporting account \(name) from \(options.displayURL)")
        var result = SeedExportResult(seed: Seed(accounts: [Seed.AccountSeed(name: name)]))
        var account = Seed.AccountSeed(
            name: name, configuration: accountObject["configuration"]?.stringMap?.nilIfEmpty,
            metadata: accountObject["metadata"]?.stringMap?.nilIfEmpty
        )
        var reader = KindReader(pager: pager, limit: options.maxPerKind, progress: progress, result: result)
        for kind in ExportedKind.allCases {
            guard let items = await reader.read(kind) else { continue }
            kind.add(items, to: &account, reader: &reader)
        }
        result = reader.result
        result.seed = Seed(accounts: [account])
        return result
    }
}

extension Dictionary {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
