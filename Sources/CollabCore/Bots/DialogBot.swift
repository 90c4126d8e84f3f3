/// A dialog bot: the vendor's `DialogBotData`. The bot is reached at its webhook endpoint (signed
/// with its secret like webhook deliveries) and acts as its own person (`BOT`) in conversations.
public struct DialogBot: Sendable, Codable, Equatable, Identifiable {
    /// `EBotDialogFilter`: which conversations a boarding bot is offered.
    public enum Filter: String, Sendable, Codable, CaseIterable {
        case visitors = "VISITORS"
        case agents = "AGENTS"
        case both = "BOTH"
        case none = "NONE"
    }

    /// `EBotDialogTimeoutBehavior`.
    public enum TimeoutBehavior: String, Sendable, Codable, CaseIterable {
        case abort = "ABORT"
        case handOff = "HAND_OFF"
    }

    public var id: String
    public var accountId: String
    public var name: String
    public var description: String?
    /// The `BOT` person the bot speaks as, created with the bot.
    public var botPersonId: String
    public var webhookStatus: WebhookRegistration.Status
    /// The `http(s)` URL the bot's requests and events are posted to.
    public var webhookEndpoint: String
    /// The HMAC key of the signature header. Never returned.
    public var webhookSecret: String
    public var outboundTimeoutMillis: Int64
    public var onboardingOrder: Int32
    public var reboardingOrder: Int32
    public var offboardingOrder: Int32
    public var onboardingFilter: Filter
    public var reboardingEnabled: Bool
    public var offboardingFilter: Filter
    public var needsCounterpartPresence: Bool
    public var messageStateHandledExternally: Bool
    public var automaticTypingStateHandlingEnabled: Bool
    public var onTimeoutBehavior: TimeoutBehavior
    public var creationTimestamp: Timestamp
    public var modificationTimestamp: Timestamp
    public var version: Int64

    /// What a create or update may set; absent fields take defaults (create) or stay (update).
    public struct Input: Sendable {
        public var name: String?
        public var description: String?
        public var webhookStatus: String?
        public var webhookEndpoint: String?
        public var webhookSecret: String?
        public var webhookApiVersion: String?
        public var outboundTimeoutMillis: Int64?
        public var onboardingOrder: Int32?
        public var reboardingOrder: Int32?
        public var offboardingOrder: Int32?
        public var onboardingFilter: String?
        public var reboardingEnabled: Bool?
        public var offboardingFilter: String?
        public var needsCounterpartPresence: Bool?
        public var messageStateHandledExternally: Bool?
        public var automaticTypingStateHandlingEnabled: Bool?
        public var onTimeoutBehavior: String?

        public init() {}
    }

    /// Bots one account may have.
    public static let maxPerAccount = 100
    /// Bounds of `outboundTimeoutMillis`.
    public static let timeoutRange: ClosedRange<Int64> = 100...60_000
}

extension DialogBot.Input {
    /// Checks sizes and enumerations; the endpoint must be an http(s) URL.
    func validate() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        try Limits.checkOptional(description, field: "description", max: Limits.textLength)
        try Limits.checkOutbound(
            endpoint: webhookEndpoint, endpointField: "webhookEndpoint", apiVersion: webhookApiVersion, apiVersionField: "webhookApiVersion", secret: webhookSecret,
            secretField: "webhookSecret"
        )
        if let webhookStatus, WebhookRegistration.Status(rawValue: webhookStatus) == nil { throw .badRequest("unknown webhookStatus '\(webhookStatus)'") }
        for (field, value) in [("onboardingFilter", onboardingFilter), ("offboardingFilter", offboardingFilter)] {
            if let value, DialogBot.Filter(rawValue: value) == nil { throw .badRequest("unknown \(field) '\(value)': VISITORS, AGENTS, BOTH or NONE") }
        }
        if let onTimeoutBehavior, DialogBot.TimeoutBehavior(rawValue: onTimeoutBehavior) == nil { throw .badRequest("onTimeoutBehavior must be ABORT or HAND_OFF") }
        if let outboundTimeoutMillis, !DialogBot.timeoutRange.contains(outboundTimeoutMillis) {
            throw .badRequest("outboundTimeoutMillis must be between \(DialogBot.timeoutRange.lowerBound) and \(DialogBot.timeoutRange.upperBound)")
        }
    }
}

extension DialogBot {
    /// Applies an input's present fields (the caller validated it).
    mutating func apply(_ input: Input) {
        name = input.name ?? name
        description = input.description ?? description
        webhookEndpoint = input.webhookEndpoint ?? webhookEndpoint
        webhookSecret = input.webhookSecret ?? webhookSecret
        webhookStatus = input.webhookStatus.flatMap(WebhookRegistration.Status.init(rawValue:)) ?? webhookStatus
        outboundTimeoutMillis = input.outboundTimeoutMillis ?? outboundTimeoutMillis
        onboardingOrder = input.onboardingOrder ?? onboardingOrder
        reboardingOrder = input.reboardingOrder ?? reboardingOrder
        offboardingOrder = input.offboardingOrder ?? offboardingOrder
        onboardingFilter = input.onboardingFilter.flatMap(Filter.init(rawValue:)) ?? onboardingFilter
        reboardingEnabled = input.reboardingEnabled ?? reboardingEnabled
        offboardingFilter = input.offboardingFilter.flatMap(Filter.init(rawValue:)) ?? offboardingFilter
        needsCounterpartPresence = input.needsCounterpartPresence ?? needsCounterpartPresence
        messageStateHandledExternally = input.messageStateHandledExternally ?? messageStateHandledExternally
        automaticTypingStateHandlingEnabled = input.automaticTypingStateHandlingEnabled ?? automaticTypingStateHandlingEnabled
        onTimeoutBehavior = input.onTimeoutBehavior.flatMap(TimeoutBehavior.init(rawValue:)) ?? onTimeoutBehavior
    }
}

extension DialogBot: StorableEntity {
    public static var kind: EntityKind { .dialogBot }
    public var storageAccountId: String? { accountId }
}
