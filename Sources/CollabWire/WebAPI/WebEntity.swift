/// A stored vendor entity as the Web API shows it (`Account`, `ApiKey`, `NamedArea`, `User`,
/// `WebhookRegistration`, the interceptors): the ``WebEntityHeader`` every such schema starts with,
/// followed by the entity's own `fields` in the same JSON object. Each entity declares only its fields;
/// the header's and the fields' members read and write as if they were the entity's own
/// (`apiKey.id`, `apiKey.name`): a ``FlatObject``.
public struct WebEntity<Fields: WebEntityFields>: WebAPIObject, FlatObject {
    /// The members every stored entity carries.
    public var header: WebEntityHeader
    /// The entity's own members.
    public var fields: Fields

    /// The `$_type` of every entity with these fields.
    public static var typeName: String { Fields.typeName }

    /// The `$_type` the entity carries (set on one made here, as decoded on one read).
    public var type: String? {
        get { header.type }
        set { header.type = newValue }
    }

    /// An entity with this header and these fields.
    /// - Parameters:
    ///   - header: Its `$_type`, id, timestamps, version and account.
    ///   - fields: Its own fields.
    public init(_ header: WebEntityHeader, _ fields: Fields) {
        self.header = header
        self.fields = fields
    }

    /// An entity with no id yet, carrying its `$_type`.
    /// - Parameter fields: The entity's own fields.
    public init(_ fields: Fields) {
        self.init(WebEntityHeader(type: Fields.typeName), fields)
    }
}

/// The fields of one kind of ``WebEntity`` after its header.
public protocol WebEntityFields: Codable, Sendable {
    /// The vendor's schema name, the entity's `$_type`.
    static var typeName: String { get }
}

/// The members every stored vendor entity starts with; each is absent when unset (an entity not yet
/// created has no id, an `Account` belongs to no account).
public struct WebEntityHeader: Codable, Sendable, Equatable {
    /// `$_type`: the vendor's schema name.
    public var type: String?
    /// The entity's id, set by the server.
    public var id: String?
    /// When it was created, ms since epoch.
    public var creationTimestamp: Int64?
    /// When it last changed, ms since epoch.
    public var modificationTimestamp: Int64?
    /// The version an update must name; a stale one is a conflict.
    public var version: Int64?
    /// The account it belongs to.
    public var accountId: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, creationTimestamp, modificationTimestamp, version, accountId
    }

    /// A header with only its `$_type` set.
    /// - Parameter type: The vendor's schema name.
    public init(type: String?) {
        self.type = type
    }
}

extension WebEntity: Equatable where Fields: Equatable {}
