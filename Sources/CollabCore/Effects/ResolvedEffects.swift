public import CollabWire
public import Foundation

/// What a committed write makes happen outside the state, resolved under the account's lock at commit
/// (see ``EffectResolver``): everything a consumer needs is here, so nothing after the commit reads the
/// state again.
public struct ResolvedEffects: Sendable, Equatable {
    /// Pushes, one per device and transport.
    public var pushes: [ResolvedPush] = []
    /// Signed POSTs: webhook registrations' events (`push_notification.*` included) and dialog bots' events.
    public var webhooks: [ResolvedWebhook] = []
    /// Onboarding offers to dialog bots, whose answer the server records with a write of its own.
    public var botOffers: [ResolvedBotOffer] = []

    public init() {}

    /// Whether there is nothing to carry out.
    public var isEmpty: Bool { pushes.isEmpty && webhooks.isEmpty && botOffers.isEmpty }

    /// Adds `other`'s effects after these.
    public mutating func append(contentsOf other: ResolvedEffects) {
        pushes += other.pushes
        webhooks += other.webhooks
        botOffers += other.botOffers
    }
}

/// One push to one token, as the account's state stood when the write committed: the device's token,
/// version and current key, the topic, and the account's push sinks.
public struct ResolvedPush: Sendable, Equatable {
    public var accountId: String
    public var personId: String
    /// The device record (`<person id>:<device id>`), so a token the push service rejects can be removed.
    public var deviceRecordId: String
    /// The app's own device id.
    public var deviceId: String
    public var content: PushContent
    public var transport: PushTransport
    public var version: PushVersion
    /// The token the push is addressed to.
    public var token: String
    /// `apns-topic` (with `.voip` for VoIP pushes); `nil` for FCM.
    public var topic: String?
    /// The device's current notification key, which encrypted versions seal the content with.
    public var key: NotificationKey?
    /// The account's sinks (APNs, FCM, simulator files) at commit; `nil`: the outbox only.
    public var settings: PushSettings?
    /// Why the push is recorded but not sent (the person paused notifications), if it is not sent.
    public var suppressedReason: String?
    /// When the write that decided it committed.
    public var createdAt: Timestamp

    /// The push of `intent` over `transport` to `device`, composed under the account's `settings`; `nil`
    /// when the device has no token for the transport. The topic is the account's APNs topic, else the
    /// app's id, with `.voip` for VoIP pushes.
    public init?(_ intent: PushIntent, to device: Device, over transport: PushTransport, settings: PushSettings?) {
        let token: String? =
            switch transport {
            case .apns: device.apnsToken
            case .apnsVoIP: device.pushKitToken
            case .fcm: device.fcmToken
            }
        guard let token else { return nil }
        let topic = settings?.apns?.topic ?? device.device.appId ?? "com.example.app"
        accountId = intent.accountId
        personId = intent.personId
        deviceRecordId = device.id
        deviceId = device.deviceId
        content = intent.content
        self.transport = transport
        version = device.version
        self.token = token
        self.topic = transport == .fcm ? nil : (transport == .apnsVoIP ? topic + ".voip" : topic)
        key = device.keys?.current
        self.settings = settings
        suppressedReason = intent.suppressedReason
        createdAt = intent.createdAt
    }
}

/// One signed POST of an event: to a webhook registration, or to a dialog bot's endpoint.
public struct ResolvedWebhook: Sendable, Equatable {
    /// The registration (or, for a bot's events, the bot) the delivery is for.
    public var registrationId: String
    public var accountId: String
    /// A name for logs (the registration's, or the bot's).
    public var name: String
    public var endpoint: String
    /// The HMAC key of the signature header.
    public var secret: String
    /// The vendor's event name (`conversation.new_message`, `bot.dialog.message`, …).
    public var eventType: String
    /// The body exactly as posted.
    public var body: Data
    public var createdAt: Timestamp

    public init(
        registrationId: String, accountId: String, name: String, endpoint: String, secret: String, eventType: String, body: Data, createdAt: Timestamp
    ) {
        self.registrationId = registrationId
        self.accountId = accountId
        self.name = name
        self.endpoint = endpoint
        self.secret = secret
        self.eventType = eventType
        self.body = body
        self.createdAt = createdAt
    }

    /// A delivery to a webhook registration.
    public init(_ registration: WebhookRegistration, eventType: String, body: Data, createdAt: Timestamp) {
        self.init(
            registrationId: registration.id, accountId: registration.accountId, name: registration.name ?? "", endpoint: registration.endpoint ?? "",
            secret: registration.secret ?? "", eventType: eventType, body: body, createdAt: createdAt
        )
    }

    /// A delivery to a dialog bot's endpoint, signed with the bot's secret.
    public init(_ bot: DialogBot, eventType: String, body: Data, createdAt: Timestamp) {
        self.init(
            registrationId: bot.id, accountId: bot.accountId, name: "dialog bot \(bot.name ?? "")", endpoint: bot.webhookEndpoint ?? "",
            secret: bot.webhookSecret ?? "", eventType: eventType, body: body, createdAt: createdAt
        )
    }
}

/// An onboarding offer to a dialog bot (`outbound.bot.onboarding_offer`): a request whose answer decides
/// whether the bot's dialog opens.
public struct ResolvedBotOffer: Sendable, Equatable {
    /// The dialog token the answer is recorded under.
    public var dialogToken: String
    public var accountId: String
    /// The bot as it stood at commit (endpoint, secret, status, timeout).
    public var bot: DialogBot
    /// The `BotOnboardingOfferRequest` body.
    public var body: Data

    /// An offer of `bot`, recorded under `dialogToken`.
    public init(dialogToken: String, accountId: String, bot: DialogBot, body: Data) {
        self.dialogToken = dialogToken
        self.accountId = accountId
        self.bot = bot
        self.body = body
    }
}
