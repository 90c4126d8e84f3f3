public import CollabWire
/// The vendor's `EAuthorizationRole`, ordered from least to most privileged.
///
/// The Web API declares the minimum role of each operation (`x-required-role`); a caller may call an
/// operation when its role is at least that. `TECHNICAL_ADMIN` ranks above `ADMIN` and below
/// `SUPER_ADMIN`.
public enum AuthorizationRole: String, Sendable, Codable, CaseIterable, Comparable, NamedCases {
    case anonymousUser = "ANONYMOUS_USER"
    case webuser = "WEBUSER"
    case registeredUser = "REGISTERED_USER"
    case supervisor = "SUPERVISOR"
    case admin = "ADMIN"
    case technicalAdmin = "TECHNICAL_ADMIN"
    case superAdmin = "SUPER_ADMIN"

    private var rank: Int {
        switch self {
        case .anonymousUser: 0
        case .webuser: 1
        case .registeredUser: 2
        case .supervisor: 3
        case .admin: 4
        case .technicalAdmin: 5
        case .superAdmin: 6
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    /// Whether a person with this role works for the account (an agent) rather than visiting it.
    public var isAgentRole: Bool { self >= .registeredUser }
}
