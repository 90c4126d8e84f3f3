import Foundation
public import CollabWire

/// Which secrets a snapshot carries.
///
/// A *redacted* snapshot holds nothing an admin of the account could not read through the APIs anyway:
/// the credentials no API ever returns are left out (see ``SecretBearingEntity``), so an export is never
/// a way to climb to another user's rights. An *included* snapshot is the store as it is, for the
/// operator (the control token, or a super admin who asks for it) and for `--snapshot-on-exit`.
public enum SnapshotSecrets: String, Sendable, Codable, CaseIterable, NamedCases {
    /// Everything the store keeps: password hashes, login sessions, client tokens, notification keys,
    /// JWT signing secrets, push credentials, bot secrets.
    case included
    /// Credentials left out; importing drops sessions, leaves passwords unset and issues new keys and
    /// signing secrets (see ``AccountState/renewRedactedSecrets(context:)``).
    case redacted
}

/// An entity that holds a secret no API returns to any role, so a redacted snapshot must not carry it.
///
/// The secrets an admin of the account reads through the Web API anyway — API keys, the account
/// secret, webhook and interceptor secrets, invitation tokens — are not redacted: an export never shows more than the
/// APIs do, and a restored account keeps working with them.
public protocol SecretBearingEntity: StorableEntity {
    /// The entity as a redacted snapshot carries it, or `nil` to leave it out altogether.
    var redactingSecrets: Self? { get }
}

extension User: SecretBearingEntity {
    /// Without the password hash (a bcrypt hash of a human password can be attacked offline).
    public var redactingSecrets: User? {
        var user = self
        user.passwordHash = nil
        return user
    }
}

extension AuthSession: SecretBearingEntity {
    /// Left out: a session's id is its bearer token.
    public var redactingSecrets: AuthSession? { nil }
}

extension ClientSession: SecretBearingEntity {
    /// Left out: a client session's id is the client's token.
    public var redactingSecrets: ClientSession? { nil }
}

extension Device: SecretBearingEntity {
    /// Without the notification keys (only the device itself fetches them).
    public var redactingSecrets: Device? {
        var device = self
        device.keys = nil
        return device
    }
}

extension JWTValidationSettings: SecretBearingEntity {
    /// Without HS256 shared secrets (a key left with no material is dropped) and the mock's own
    /// test-token signing secret; public keys, the JWKS, issuer and audience stay.
    public var redactingSecrets: JWTValidationSettings? {
        var settings = self
        settings.keys = keys.compactMap { key in
            var key = key
            key.hs256Secret = nil
            return key.rs256PublicKeyPEM == nil && key.es256PublicKeyPEM == nil ? nil : key
        }
        settings.testTokenSecret = ""
        return settings
    }
}

extension PushSettings: SecretBearingEntity {
    /// Without the APNs and FCM sinks (their private keys are never returned); the simulator directory
    /// stays.
    public var redactingSecrets: PushSettings? {
        var settings = self
        settings.apns = nil
        settings.fcm = nil
        return settings
    }
}

/// Redaction of stored entities for a snapshot.
public enum SecretRedaction {
    /// `entity` as a snapshot with `secrets` carries it, or `nil` when it is left out.
    public static func apply(_ secrets: SnapshotSecrets, to entity: any StorableEntity) -> (any StorableEntity)? {
        guard secrets == .redacted, let bearing = entity as? any SecretBearingEntity else { return entity }
        return redact(bearing)
    }

    private static func redact<E: SecretBearingEntity>(_ entity: E) -> (any StorableEntity)? {
        entity.redactingSecrets
    }
}

extension AccountState {
    /// Issues anew what a redacted export left out, so a restored account works: a device with an
    /// encrypted push version gets a new notification key (it fetches it like after a rotation), the
    /// account a new test-token secret, a bot a new signing secret, a declared entity the secrets its
    /// declaration names. Sessions and client tokens stay gone (users log in again, apps start again);
    /// passwords stay unset (a seed or `setPassword` sets them).
    public mutating func renewRedactedSecrets(context: OperationContext) {
        for var device in devices.values where device.keys == nil && device.version.isEncrypted {
            device.keys = NotificationKeyRing(
                current: NotificationKey(id: context.ids.make(length: 12), material: PushEncryption.makeKeyMaterial(), createdAt: context.now)
            )
            storeDevice(device)
        }
        for var settings in jwtSettings.values where settings.testTokenSecret.isEmpty {
            settings.testTokenSecret = context.ids.makeSecret()
            jwtSettings[settings.id] = settings
        }
        for entity in declared.storedEntities {
            // A declared kind's secrets go through its declaration; records of our own encoding always decode.
            guard let renewed = try? EntityRegistry.renewingSecrets(of: StoredRecord(encoding: entity), context: context) else { continue }
            _ = try? declared.load(renewed)
        }
    }
}
