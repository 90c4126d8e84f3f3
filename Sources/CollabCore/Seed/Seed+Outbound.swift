/// Seed entries for what an account calls out to: webhook registrations and dialog bots.
extension Seed {
    /// A webhook registration (the vendor's `WebhookRegistration` without its bookkeeping fields).
    public struct WebhookSeed: Sendable, Codable, Equatable {
        public var name: String
        public var description: String?
        public var status: WebhookRegistration.Status?
        /// The `http(s)` URL events are posted to.
        public var endpoint: String
        /// Event names (`conversation.created`, …, or `*`).
        public var events: [String]
        /// The HMAC key of `x-unblu-signature-256`; generated when a new registration has none.
        public var secret: String?

        public init(
            name: String, description: String? = nil, status: WebhookRegistration.Status? = nil, endpoint: String, events: [String],
            secret: String? = nil
        ) {
            self.name = name
            self.description = description
            self.status = status
            self.endpoint = endpoint
            self.events = events
            self.secret = secret
        }

        /// The registration as a create or update draft.
        var draft: WebhookRegistration {
            WebhookRegistration(name: name, endpoint: endpoint, events: events, secret: secret, status: status, description: description)
        }
    }

    /// A dialog bot (the vendor's `DialogBotData` without its bookkeeping fields and its person).
    /// Absent fields take the defaults of `bots/create`.
    public struct BotSeed: Sendable, Codable, Equatable {
        public var name: String
        public var description: String?
        public var webhookStatus: WebhookRegistration.Status?
        public var webhookEndpoint: String
        /// The HMAC key of the bot's requests; generated when a new bot has none.
        public var webhookSecret: String?
        public var outboundTimeoutMillis: Int64?
        public var onboardingOrder: Int32?
        public var reboardingOrder: Int32?
        public var offboardingOrder: Int32?
        public var onboardingFilter: DialogBot.Filter?
        public var reboardingEnabled: Bool?
        public var offboardingFilter: DialogBot.Filter?
        public var needsCounterpartPresence: Bool?
        public var messageStateHandledExternally: Bool?
        public var automaticTypingStateHandlingEnabled: Bool?
        public var onTimeoutBehavior: DialogBot.TimeoutBehavior?

        public init(name: String, webhookEndpoint: String) {
            self.name = name
            self.webhookEndpoint = webhookEndpoint
        }

        /// The bot as a create or update draft.
        var draft: DialogBot {
            var bot = DialogBot(name: name, webhookEndpoint: webhookEndpoint)
            bot.description = description
            bot.webhookStatus = webhookStatus
            bot.webhookSecret = webhookSecret
            bot.outboundTimeoutMillis = outboundTimeoutMillis
            bot.onboardingOrder = onboardingOrder
            bot.reboardingOrder = reboardingOrder
            bot.offboardingOrder = offboardingOrder
            bot.onboardingFilter = onboardingFilter
            bot.reboardingEnabled = reboardingEnabled
            bot.offboardingFilter = offboardingFilter
            bot.needsCounterpartPresence = needsCounterpartPresence
            bot.messageStateHandledExternally = messageStateHandledExternally
            bot.automaticTypingStateHandlingEnabled = automaticTypingStateHandlingEnabled
            bot.onTimeoutBehavior = onTimeoutBehavior
            return bot
        }
    }
}
