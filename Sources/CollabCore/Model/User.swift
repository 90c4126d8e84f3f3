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
    /// The language the user chose (`authenticator/setDefaultLocale`), a BCP 47 tag; not part of the
    /// vendor's `User`, so the Web API never shows it.
    public var locale: String?

    /// The longest locale tag taken (BCP 47 asks implementations to take at least 35 characters).
    public static let maxLocaleLength = 35

    /// A locale as `authenticator/setDefaultLocale` takes it: a BCP 47-like language tag, a language
    /// subtag of 2 to 8 letters then subtags of 1 to 8 letters or digits, separated by `-` (or `_`, as
    /// Java writes them), at most ``maxLocaleLength`` characters.
    /// - Returns: The tag with `-` separators.
    /// - Throws: `badRequest` naming `locale`.
    public static func checkLocale(_ locale: String?) throws(CollabError) -> String {
        guard let locale, !locale.isEmpty else { throw .badRequest("locale is required (a language tag such as en, de-CH or fr)") }
        guard Limits.fits(locale, maxLocaleLength) else { throw .badRequest("locale is longer than \(maxLocaleLength) characters") }
        let subtags = locale.split(separator: /[-_]/, omittingEmptySubsequences: false)
        let isASCIIAlphanumeric = { (character: Character) in character.isASCII && (character.isLetter || character.isNumber) }
        guard let language = subtags.first, (2...8).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }),
            subtags.dropFirst().allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy(isASCIIAlphanumeric) })
        else { throw .badRequest("locale is not a language tag: '\(locale.prefix(40))' (expected e.g. en, de-CH or fr)") }
        return subtags.joined(separator: "-")
    }

    /// The name to show when none is set explicitly.
    public var effectiveDisplayName: String {
        if let displayName, !displayName.isEmpty { return displayName }
        let full = [firstName, lastName].compactMap { $0 }.joined(separator: " ")
        return full.isEmpty ? username : full
    }
}
