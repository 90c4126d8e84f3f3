/// An invitation to a conversation: the vendor's `ConversationInvitationData`. The mock models the
/// anonymous visitor invitations, by PIN (`PIN_CONVERSATION`) and by link (`VISITOR_INVITATION`), the
/// assignment request a requeue creates (`ASSIGNMENT_REQUEST`, redeemed by the agent who accepts), agent
/// and team invitations and forwardings, and deputy delegations (`DEPUTY_INVITATION`, offered to the
/// assigned agent's deputies as secondary targets).
public struct Invitation: Sendable, Codable, Equatable, Identifiable {
    /// `EInvitationType`, as far as the mock models them.
    public enum Kind: String, Sendable, Codable {
        case pin = "PIN_CONVERSATION"
        case visitorLink = "VISITOR_INVITATION"
        case assignmentRequest = "ASSIGNMENT_REQUEST"
        case agentInvitation = "AGENT_INVITATION"
        case agentForwarding = "AGENT_FORWARDING"
        case deputyInvitation = "DEPUTY_INVITATION"
    }

    /// `EInvitationResponseState`: how one target answered.
    public enum ResponseState: String, Sendable, Codable {
        case pending = "PENDING"
        case declined = "DECLINED"
        case ignored = "IGNORED"
        case canceled = "CANCELED"
        case accepted = "ACCEPTED"
    }

    /// `ConversationInvitationSecondaryTargetData`: another agent the invitation is offered to besides its
    /// main target, who may accept it in the main target's place while it is pending.
    public struct SecondaryTarget: Sendable, Codable, Equatable {
        public var personId: String
        public var responseState: ResponseState = .pending
    }

    /// `EInvitationState`. EXPIRED is not stored: an OPEN invitation past its expiry reads as EXPIRED.
    public enum State: String, Sendable, Codable {
        case open = "OPEN"
        case redeemed = "REDEEMED"
        case revoked = "REVOKED"
        case expired = "EXPIRED"
    }

    public var id: String
    public var accountId: String
    public var kind: Kind
    public var conversationId: String
    /// The PIN (six digits) or the link token, which the visitor redeems.
    public var token: String
    public var state: State = .open
    public var creatorPersonId: String?
    public var nickname: String?
    public var redeemingPersonId: String?
    /// `EInvitationTargetType` and the target's id, for assignment requests (the queue it waits in).
    public var targetType: String?
    public var targetId: String?
    /// For agent invitations and forwardings.
    public var comment: String?
    public var joinHidden: Bool?
    /// The address a visitor invitation was mailed to (`inviteAnonymousVisitorToConversationWithEmail`).
    public var email: String?
    /// The other agents the invitation is offered to (`addSecondaryInvitationTarget`; a deputy
    /// delegation's deputies), in the order they were added; absent when there never were any.
    public var secondaryTargets: [SecondaryTarget]?
    /// A deputy delegation's `EDeputyDelegationEscalationLevel`.
    public var delegationLevel: String?
    public var createdTimestamp: Timestamp
    public var expirationTimestamp: Timestamp

    /// The state at `now`: an open invitation past its expiry is EXPIRED.
    public func state(at now: Timestamp) -> State {
        state == .open && now >= expirationTimestamp ? .expired : state
    }

    /// Since when the token redeems: a renewed PIN's validity starts at its renewal.
    public var validSince: Timestamp {
        kind == .pin ? max(createdTimestamp, expirationTimestamp - Self.pinLifetime) : createdTimestamp
    }

    /// How long a PIN stays valid; a link lives longer.
    public static let pinLifetime: Int64 = 60 * 60 * 1000
    public static let linkLifetime: Int64 = 7 * 24 * 60 * 60 * 1000
    /// Open invitations one conversation may have.
    public static let maxOpenPerConversation = 50
    /// Invitations one conversation keeps, closed ones (redeemed, revoked, expired) included: a new one
    /// beyond removes the oldest closed one.
    public static let maxPerConversation = 1_000
    /// Secondary targets one invitation may have.
    public static let maxSecondaryTargets = 50
    /// The `invitationChanged` event detail naming the person whose secondary target was canceled.
    public static let canceledTargetDetail = "canceledPersonId"

    /// The secondary targets who may still accept (their response is PENDING).
    public var pendingSecondaryTargets: [String] {
        (secondaryTargets ?? []).filter { $0.responseState == .pending }.map(\.personId)
    }

    /// An address to mail an invitation to: one `@` between a non-empty local part and a domain with a
    /// dot, no spaces, at most 254 characters (the longest address SMTP carries).
    public static func checkEmail(_ email: String?) throws(CollabError) -> String {
        guard let email, !email.isEmpty else { throw .badRequest("email is required") }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard Limits.fits(email, 254), parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix("."),
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw .badRequest("email is not an email address: '\(email.prefix(64))'") }
        return email
    }
}

extension Invitation: StorableEntity {
    public static var kind: EntityKind { .invitation }
    public var storageAccountId: String? { accountId }
}
