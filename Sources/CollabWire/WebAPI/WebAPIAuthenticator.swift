/// `AuthenticatorLoginBody` and `AuthenticatorCreateAuthenticationTokenBody`.
public struct WebLoginBody: Codable, Sendable {
    public var username: String?
    public var password: String?
    public var redirectOnSuccess: String?
    public var redirectOnFailure: String?

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }
}

/// `LoginResult`.
public struct WebLoginResult: WebAPIObject {
    public static let typeName = "LoginResult"
    public var type: String? = Self.typeName
    public var success: Bool?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", success
    }

    public init(success: Bool) { self.success = success }
}

/// `AuthenticationTokenCreationResult`.
public struct WebAuthenticationTokenResult: WebAPIObject {
    public static let typeName = "AuthenticationTokenCreationResult"
    public var type: String? = Self.typeName
    public var token: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", token
    }

    public init(token: String) { self.token = token }
}

/// `SecureTokenRequest`.
public struct WebSecureTokenRequest: WebAPIObject {
    public static let typeName = "SecureTokenRequest"
    public var type: String? = Self.typeName
    public var token: String?
    /// `JWT` or `OIDC_ACCESS_TOKEN`.
    public var tokenType: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", token
        case tokenType = "type"
    }

    public init(token: String, tokenType: String = "JWT") {
        self.token = token
        self.tokenType = tokenType
    }
}

/// `AuthenticatorLogoutBody`.
public struct WebLogoutBody: Codable, Sendable {
    public var redirectOnSuccess: String?
    public init() {}
}

/// `UsersSetPasswordBody`.
public struct WebSetPasswordBody: Codable, Sendable {
    public var password: String?
    public init(password: String) { self.password = password }
}

/// The name of the session cookie the Web API sets on login.
public let webAPISessionCookieName = "x-unblu-authsession"
