public import Foundation
public import CollabWire

/// The kinds of entity the store keeps, one table-like namespace each.
public enum EntityKind: String, Sendable, Codable, CaseIterable, NamedCases {
    case globalConfiguration
    /// The virtual clock's setting (one server-wide record, see ``ClockSetting``).
    case virtualClock
    case account
    case apiKey
    case namedArea
    case user
    case person
    case session
    case jwtSettings
    case conversation
    case message
    case clientSession
    case presence
    case webhookRegistration
    case device
    case call
    case pushSettings
    case coBrowsingSession
    case invitation
    case fileUploadInterceptor
    case messageInterceptor
    case dialogBot
    case botDialog
    /// Every kind declared to the entity layer (``DeclaredEntity``); the record id is `TypeName/id`.
    case declared
}

/// One entity as the store keeps it: its kind, id, owning account and JSON body.
public struct StoredRecord: Sendable, Equatable {
    public var kind: EntityKind
    public var id: String
    /// The owning account, so a store can delete an account's data in one statement.
    public var accountId: String?
    /// The entity encoded as JSON.
    public var body: Data

    public init(kind: EntityKind, id: String, accountId: String?, body: Data) {
        self.kind = kind
        self.id = id
        self.accountId = accountId
        self.body = body
    }
}

extension StoredRecord {
    /// Encodes an entity as a record (by the store's writer, outside any state lock).
    /// - Parameter sortingKeys: Whether object keys are sorted (``RecordCoding/encoder``: the same value
    ///   gives the same bytes, as snapshots and the change log want); `false` for a store's own rows
    ///   (``RecordCoding/storeEncoder``), which are only ever decoded.
    public init(encoding entity: any StorableEntity, sortingKeys: Bool = true) {
        // Encoding our own model types cannot fail: they hold only strings, numbers and maps.
        let encoder = sortingKeys ? RecordCoding.encoder : RecordCoding.storeEncoder
        let body = (try? encoder.encode(entity)) ?? Data()
        self.init(kind: type(of: entity).kind, id: entity.id, accountId: entity.storageAccountId, body: body)
    }
}

/// One durable change the store must apply; a batch of them is applied atomically.
///
/// A put carries the entity itself: the store encodes it when it writes, so encoding happens in the
/// writer rather than under the state lock, and a store that keeps nothing (`memory`) never encodes.
public enum StoreChange: Sendable {
    case put(any StorableEntity)
    case delete(EntityKind, id: String)
    /// Removes every record an account owns (its reset or deletion), in one statement.
    case deleteAccountData(String)
}

/// An entity the store can keep.
public protocol StorableEntity: Codable, Sendable {
    /// The namespace the entity lives in.
    static var kind: EntityKind { get }
    /// The entity's identifier, unique within its kind.
    var id: String { get }
    /// The owning account, if any.
    var storageAccountId: String? { get }
}

extension Account: StorableEntity {
    public static var kind: EntityKind { .account }
    public var storageAccountId: String? { id }
}
extension ApiKey: StorableEntity {
    public static var kind: EntityKind { .apiKey }
    public var storageAccountId: String? { accountId }
}
extension User: StorableEntity {
    public static var kind: EntityKind { .user }
    public var storageAccountId: String? { accountId }
}
extension Person: StorableEntity {
    public static var kind: EntityKind { .person }
    public var storageAccountId: String? { accountId }
}
extension AuthSession: StorableEntity {
    public static var kind: EntityKind { .session }
    public var storageAccountId: String? { accountId }
}
extension JWTValidationSettings: StorableEntity {
    public static var kind: EntityKind { .jwtSettings }
    public var storageAccountId: String? { id }
}

extension Conversation: StorableEntity {
    public static var kind: EntityKind { .conversation }
    public var storageAccountId: String? { accountId }
}
extension ConversationMessage: StorableEntity {
    public static var kind: EntityKind { .message }
    public var storageAccountId: String? { accountId }
}
extension ClientSession: StorableEntity {
    public static var kind: EntityKind { .clientSession }
    public var storageAccountId: String? { accountId }
}
extension PresenceRecord: StorableEntity {
    public static var kind: EntityKind { .presence }
    public var storageAccountId: String? { accountId }
}

/// The GLOBAL scope of the configuration cascade, stored as a single record.
public struct GlobalConfiguration: StorableEntity, Equatable {
    public static var kind: EntityKind { .globalConfiguration }
    public var id: String { "global" }
    public var storageAccountId: String? { nil }
    public var properties: [String: String]
    /// The licence `global/installLicense` or `removeLicense` left; nil: the built-in one (none was sent).
    public var license: GlobalLicense?
    /// The global file-upload interceptors (`/fileuploadglobalinterceptors`, account id ""): every upload
    /// in every account is reviewed by the matching ones after the account's own interceptors.
    public var fileUploadInterceptors: [String: FileUploadInterceptor]

    public init(properties: [String: String] = [:], license: GlobalLicense? = nil, fileUploadInterceptors: [String: FileUploadInterceptor] = [:]) {
        self.properties = properties
        self.license = license
        self.fileUploadInterceptors = fileUploadInterceptors
    }

    enum CodingKeys: String, CodingKey { case properties, license, fileUploadInterceptors }

    /// Records written before global interceptors existed have none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        properties = try container.decode([String: String].self, forKey: .properties)
        license = try container.decodeIfPresent(GlobalLicense.self, forKey: .license)
        fileUploadInterceptors = try container.decodeIfPresent([String: FileUploadInterceptor].self, forKey: .fileUploadInterceptors) ?? [:]
    }
}

/// The server's licence as the Web API last set it. MockCollab only keeps it to answer `global/read`:
/// it never checks a licence's content or gates a feature on it.
public enum GlobalLicense: Codable, Sendable, Equatable {
    /// `installLicense` stored a licence; its id is derived from the content.
    case installed(licenseId: String)
    /// `removeLicense` removed it.
    case removed
}

/// The durable changes one operation makes, in order, and the events it emits.
public struct ChangeSet: Sendable {
    public private(set) var changes: [StoreChange] = []
    /// Events to publish once the changes are stored.
    public private(set) var events: [DomainEvent] = []

    /// Pushes to compose and deliver after the changes are stored.
    public private(set) var pushes: [PushIntent] = []

    /// Records an event to publish after the changes are stored.
    public mutating func emit(_ event: DomainEvent) {
        events.append(event)
    }

    /// Records a push to send after the changes are stored.
    public mutating func push(_ intent: PushIntent) {
        pushes.append(intent)
    }

    /// How many events and pushes are recorded so far: a mark for ``withdrawAnnouncements(since:)``.
    public var announcementMark: (events: Int, pushes: Int) { (events.count, pushes.count) }

    /// Drops the events and pushes recorded since `mark`, keeping the changes: what a seed does is
    /// stored, never announced.
    public mutating func withdrawAnnouncements(since mark: (events: Int, pushes: Int)) {
        events.removeSubrange(min(mark.events, events.count)...)
        pushes.removeSubrange(min(mark.pushes, pushes.count)...)
    }

    public init() {}

    /// Records that `entity` was created or replaced.
    public mutating func put<E: StorableEntity>(_ entity: E) {
        changes.append(.put(entity))
    }

    /// Records that everything `accountId` owns was removed.
    public mutating func deleteAccountData(_ accountId: String) {
        changes.append(.deleteAccountData(accountId))
    }

    /// Records that the entity `id` of `kind` was removed.
    public mutating func delete(_ kind: EntityKind, _ id: String) {
        changes.append(.delete(kind, id: id))
    }

    /// Adds another operation's changes, events and pushes after these (a batch of writes committed together).
    public mutating func append(contentsOf other: ChangeSet) {
        changes += other.changes
        events += other.events
        pushes += other.pushes
    }

    /// Whether the operation changed nothing and emitted nothing.
    public var isEmpty: Bool { changes.isEmpty && events.isEmpty && pushes.isEmpty }
}

/// JSON coding of stored records.
public enum RecordCoding {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// The encoder of a store's rows: keys in the order the encoding writes them, not sorted. Nothing
    /// compares a row's bytes (rows are decoded, and decoding ignores key order), and sorting was about
    /// 2 % of a durable write's time. Rows written sorted, by earlier versions, decode the same.
    public static let storeEncoder = JSONEncoder()

    /// Decodes a stored record into its entity type.
    public static func decode<E: StorableEntity>(_ type: E.Type, from record: StoredRecord) throws -> E {
        try JSONDecoder().decode(E.self, from: record.body)
    }
}
