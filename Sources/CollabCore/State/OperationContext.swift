import Foundation

/// What a state-changing operation needs from outside: the current time and fresh identifiers.
public struct OperationContext: Sendable {
    /// The time the operation happens at.
    public var now: Timestamp
    /// Makes identifiers and secrets.
    public var ids: EntityIDGenerator
    /// How much an account may store of what its callers create.
    public var limits: StoredRecordLimits

    public init(now: Timestamp, ids: EntityIDGenerator, limits: StoredRecordLimits = StoredRecordLimits()) {
        self.now = now
        self.ids = ids
        self.limits = limits
    }
}

/// Bounds on user-supplied values, so no request can grow the state without limit.
///
/// A text's length is counted in Unicode code points, as JSON Schema's `maxLength` (and so
/// `/openapi.json`) counts it: never in Swift `Character`s, of which one (a letter and any number of
/// combining marks) can hold any number of bytes. A bound of `n` is then a bound of `4n` bytes.
public enum Limits {
    public static let nameLength = 255
    public static let textLength = 4096
    public static let propertyCount = 500
    public static let propertyKeyLength = 255
    public static let propertyValueLength = 16 * 1024
    public static let passwordLength = 1024
    public static let readMultipleCount = 1000

    /// Whether `value` has at most `characters` code points, counted only when its UTF-8 is longer
    /// (credentials are checked on every request, and most are ASCII). Every bound on a stored text's
    /// length goes through this, so the way a length is counted lives in one place.
    public static func fits(_ value: String, _ characters: Int) -> Bool {
        value.utf8.count <= characters || value.unicodeScalars.count <= characters
    }

    /// Refuses a `readMultiple` body of more than ``readMultipleCount`` ids (or names).
    public static func checkReadMultiple(_ ids: [String], what: String = "ids") throws(CollabError) {
        guard ids.count <= readMultipleCount else { throw .badRequest("the body has more than \(readMultipleCount) \(what)") }
    }

    /// Validates a required name-like value.
    public static func checkName(_ value: String?, field: String) throws(CollabError) -> String {
        guard let value, !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .badRequest("\(field) is required and must not be empty")
        }
        guard Limits.fits(value, nameLength) else { throw .badRequest("\(field) is longer than \(nameLength) characters") }
        return value
    }

    /// Validates an optional short text value.
    public static func checkOptional(_ value: String?, field: String, max: Int = nameLength) throws(CollabError) {
        if let value, !Limits.fits(value, max) { throw .badRequest("\(field) is longer than \(max) characters") }
    }

    /// Validates what every outbound endpoint (webhooks, interceptors, bots) declares: an http(s) URL
    /// of at most 2 KiB, API version V4, and a secret of 1 to 1,024 characters. Field names are the
    /// caller's, so each entity's messages name its own fields.
    public static func checkOutbound(
        endpoint: String?, endpointField: String, apiVersion: String?, apiVersionField: String, secret: String?, secretField: String
    ) throws(CollabError) {
        guard let endpoint,
            Limits.fits(endpoint, 2048),
            endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://"),
            endpoint.count > "https://".count
        else {
            throw .badRequest("\(endpointField) must be an http:// or https:// URL")
        }
        if let apiVersion, apiVersion != "V4" { throw .badRequest("\(apiVersionField) must be V4") }
        if let secret, secret.isEmpty || !Limits.fits(secret, 1024) { throw .badRequest("\(secretField) must be 1 to 1024 characters") }
    }

    /// Validates a property map (configuration or metadata).
    public static func checkProperties(_ properties: [String: String]?, field: String) throws(CollabError) {
        guard let properties else { return }
        guard properties.count <= propertyCount else { throw .badRequest("\(field) has more than \(propertyCount) entries") }
        for (key, value) in properties {
            guard !key.isEmpty, Limits.fits(key, propertyKeyLength) else { throw .badRequest("\(field) has an empty or over-long key") }
            guard Limits.fits(value, propertyValueLength) else { throw .badRequest("\(field) value for '\(key)' is too long") }
        }
    }
}
