/// A user who can log in (an agent, supervisor or administrator of one account).
///
/// Every user has a matching ``Person`` with source `USER_DB` and the user's id as source id.
public struct User: Sendable, Codable, Equatable, Identifiable {
    public var id: String
    public var accountId: String
    public var username: String
    public var email: String?
    public var phone: String?
    public var teamId: String?
    public var authorizationRole: AuthorizationRole
    public var displayName: String?
    public var firstName: String?
    public var lastName: String?
    public var externallyManaged: Bool
    public var virtualUser: Bool
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    public var version: Int64
    public var configuration: [String: String]
    public var metadata: [String: String]?
    /// A slow salted hash (bcrypt) of the password; never leaves the server.
    public var passwordHash: String?

    /// Creates a user.
    public init(
        id: String, accountId: String, username: String, email: String? = nil, phone: String? = nil, teamId: String? = nil,
        authorizationRole: AuthorizationRole, displayName: String? = nil, firstName: String? = nil, lastName: String? = nil,
        externallyManaged: Bool = false, virtualUser: Bool = false,
        creationTimestamp: Timestamp, modificationTimestamp: Timestamp, version: Int64 = 1,
        configuration: [String: String] = [:], metadata: [String: String]? = nil, passwordHash: String? = nil
    ) {
        self.id = id
        self.accountId = accountId
        self.username = username
        self.email = email
        self.phone = phone
        self.teamId = teamId
        self.authorizationRole = authorizationRole
        self.displayName = displayName
        self.firstName = firstName
        self.lastName = lastName
        self.externallyManaged = externallyManaged
        self.virtualUser = virtualUser
        self.creationTimestamp = creationTimestamp
        self.modificationTimestamp = modificationTimestamp
        self.version = version
        self.configuration = configuration
        self.metadata = metadata
        self.passwordHash = passwordHash
    }

    /// The name to show when none is set explicitly.
    public var effectiveDisplayName: String {
        if let displayName, !displayName.isEmpty { return displayName }
        let full = [firstName, lastName].compactMap { $0 }.joined(separator: " ")
        return full.isEmpty ? username : full
    }
}
