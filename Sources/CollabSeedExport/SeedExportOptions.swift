public import CollabClient
import Foundation

/// What `mock-collab seed export` reads and how much of it.
public struct SeedExportOptions: Sendable {
    /// How the exporter proves who it is to the Web API.
    public enum Credentials: Sendable, Equatable {
        /// A user's name and password: HTTP basic, or a login session when another account is named.
        case user(username: String, password: String)
        /// A token sent as `Authorization: Bearer`: on MockCollab a Web API session token; on the vendor's
        /// server whatever bearer credential it is configured to take.
        case bearer(String)
    }

    /// The server's root URL, e.g. `https://collab.example.com` (the Web API is under `/app/rest/v4`).
    public var baseURL: String
    public var credentials: Credentials
    /// The account to export; the caller's own when `nil`. Another account needs a super admin, whose
    /// login session switches to it (`authenticator/switchToAccount`).
    public var account: String?
    /// Items asked for per search page.
    public var pageSize: Int
    /// The most entities of one kind exported; the rest of that kind is left out and reported.
    public var maxPerKind: Int
    /// The Web API prefix.
    public var prefix: String
    /// TLS trust for an `https://` server.
    public var tls: TLSOptions?

    /// ``baseURL`` without user information (`https://user:pw@host` → `https://host`), for progress and
    /// the seed's comments, which must not carry credentials.
    public var displayURL: String {
        guard var components = URLComponents(string: baseURL), components.user != nil || components.password != nil else { return baseURL }
        components.user = nil
        components.password = nil
        return components.string ?? baseURL
    }

    /// The largest page the exporter asks for (the vendor's searches answer at most a few hundred items).
    public static let maximumPageSize = 500
    /// The largest cap per kind: a seed is at most 1 MiB, which a few thousand entities fill.
    public static let maximumPerKind = 50_000

    /// - Parameters:
    ///   - baseURL: The server's root URL.
    ///   - credentials: The caller's credentials.
    ///   - account: The account to export, by name; the caller's own when `nil`.
    ///   - pageSize: Items per search page (1 to ``maximumPageSize``).
    ///   - maxPerKind: The most entities of one kind (1 to ``maximumPerKind``).
    ///   - prefix: The Web API prefix.
    ///   - tls: TLS trust for an `https://` server.
    public init(
        baseURL: String, credentials: Credentials, account: String? = nil, pageSize: Int = 100, maxPerKind: Int = 5_000,
        prefix: String = "/app/rest/v4",
        tls: TLSOptions? = nil
    ) {
        self.baseURL = baseURL
        self.credentials = credentials
        self.account = account
        self.pageSize = min(max(pageSize, 1), Self.maximumPageSize)
        self.maxPerKind = min(max(maxPerKind, 1), Self.maximumPerKind)
        self.prefix = prefix
        self.tls = tls
    }
}
