public import CollabWire
/// A participant in conversations: an agent (backed by a ``User``) or a visitor (virtual).
public struct Person: Sendable, Codable, Equatable, Identifiable {
    /// `EPersonSource`: where the person's identity comes from.
    public enum Source: String, Sendable, Codable, CaseIterable, NamedCases {
        case userDB = "USER_DB"
        case virtual = "VIRTUAL"
    }

    /// `EPersonType`.
    public enum PersonType: String, Sendable, Codable, CaseIterable, NamedCases {
        case agent = "AGENT"
        case visitor = "VISITOR"
        case system = "SYSTEM"
        case bot = "BOT"
    }

    public var id: String
    public var accountId: String
    public var personSource: Source
    /// The user id for `USER_DB` persons; the caller's own identifier for virtual ones.
    public var sourceId: String
    public var sourceUrl: String?
    public var sourceData: String?
    public var personType: PersonType
    public var authorizationRole: AuthorizationRole
    public var username: String?
    public var firstName: String?
    public var lastName: String?
    public var nickname: String?
    public var displayName: String?
    public var email: String?
    public var phone: String?
    public var teamId: String?
    public var metadata: [String: String]?
    /// A visitor's note (`persons/{id}/setNote`), who last edited it and when.
    public var note: String?
    public var noteLastEditedTimestamp: Timestamp?
    public var noteLastEditedPersonId: String?
    /// An agent's status message (`persons/{id}/setStatusMessage`).
    public var statusMessage: String?
    /// Whether an agent shows as AWAY rather than ONLINE while logged in (`persons/{id}/setAway`).
    public var away: Bool?
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    /// For an anonymous device's visitor: the SHA-256 of the secret its first start was given, which
    /// every later start must present (a device id alone is guessable). Never returned.
    public var deviceSecretHash: String?
    /// Paused notifications and unread notification counts (absent: never paused, nothing unread).
    public var notifications: PersonNotifications?
    /// The ids of the ``PersonLabel``s set on the person (absent: none).
    public var labelIds: [String]?
}

extension Person {
    /// The name apps and pushes show for the person: the display name, else first and last name, else the
    /// username; `nil` when the person has none of them. One rule for the start answer, conversation
    /// participants and push texts.
    public var shownName: String? {
        displayName?.nonEmpty ?? [firstName, lastName].compactMap { $0?.nonEmpty }.joined(separator: " ").nonEmpty ?? username?.nonEmpty
    }
}
