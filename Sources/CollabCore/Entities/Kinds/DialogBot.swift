public import CollabWire
/// A dialog bot (`DialogBotData`): reached at its webhook endpoint (signed with its secret like webhook
/// deliveries), it acts as its own `BOT` person in conversations, created with the bot.
public struct DialogBot: DeclaredEntity {
    /// `EBotDialogFilter`: which conversations a boarding bot is offered.
    public enum Filter: String, Sendable, Codable, CaseIterable, NamedCases {
        case visitors = "VISITORS"
        case agents = "AGENTS"
        case both = "BOTH"
        case none = "NONE"
    }

    /// `EBotDialogTimeoutBehavior`.
    public enum TimeoutBehavior: String, Sendable, Codable, CaseIterable, NamedCases {
        case abort = "ABORT"
        case handOff = "HAND_OFF"
    }

    public var id: String, accountId: String, creationTimestamp: Int64, modificationTimestamp: Int64?, version: Int64?
    public var name: String?
    public var description: String?
    /// The `BOT` person the bot speaks as, created with the bot (what a client sends is replaced).
    public var botPersonId: String?
    public var webhookStatus: WebhookRegistration.Status?
    /// The `http(s)` URL the bot's requests and events are posted to.
    public var webhookEndpoint: String?
    /// Always `V4`.
    public var webhookApiVersion: String?
    /// The HMAC key of the signature header: write-only, generated when a new bot has none.
    public var webhookSecret: String?
    public var outboundTimeoutMillis: Int64?
    public var onboardingOrder: Int32?
    public var reboardingOrder: Int32?
    public var offboardingOrder: Int32?
    public var onboardingFilter: Filter?
    public var reboardingEnabled: Bool?
    public var offboardingFilter: Filter?
    public var needsCounterpartPresence: Bool?
    public var messageStateHandledExternally: Bool?
    public var automaticTypingStateHandlingEnabled: Bool?
    public var onTimeoutBehavior: TimeoutBehavior?

    /// A bot as a seed or test builds it; the layer sets its id, account, timestamps and person.
    public init(name: String, webhookEndpoint: String) {
        id = ""
        accountId = ""
        creationTimestamp = 0
        self.name = name
        self.webhookEndpoint = webhookEndpoint
    }

    /// Bots one account may have.
    public static let maxPerAccount = 100
    /// Bounds of `outboundTimeoutMillis`.
    public static let timeoutRange: ClosedRange<Int64> = 100...60_000

    public static let declaration = EntityDeclaration<DialogBot>(
        typeName: "DialogBotData", path: "bots", idParameter: "dialogBotId", queryType: "DialogBotQuery", resultType: "DialogBotResult",
        listType: "DialogBotList", seedKey: "dialogBots",
        operations: EntityOperations(create: .admin, read: .admin, update: .admin, delete: .admin, search: .admin, getByName: .admin),
        fields: [
            .id("BOT_PERSON_ID") { $0.botPersonId }, .creationTimestamp, .modificationTimestamp, .name("NAME", ordered: true) { $0.name },
            EntityField("ONBOARDING", .boolean, index: .hashed, filterable: false) { .bool($0.offersOnboarding) },
        ],
        uniqueName: .name("NAME") { $0.name },
        maxPerAccount: maxPerAccount,
        rules: EntityRules(
            validate: { bot, _, _ throws(CollabError) in try bot.check() },
            complete: { bot, _ in bot.fillDefaults() },
            merge: EntityRules.keepingOmitted(replaced: ["name"], kept: ["botPersonId"]),
            prepareCreate: { bot, _, state, context throws(CollabError) in
                try state.prepareBot(&bot, context: context)
            },
            afterCreate: { bot, _, state, context, changes in state.addPerson(of: bot, context: context, changes: &changes) }
        ),
        secrets: EntitySecrets(
            redact: { bot in
                var redacted = bot
                redacted.webhookSecret = ""
                return redacted
            },
            renew: { bot, makeSecret in
                guard bot.webhookSecret?.isEmpty ?? true else { return bot }
                var renewed = bot
                renewed.webhookSecret = makeSecret()
                return renewed
            }
        ),
        storedOnly: ["webhookSecret"],
        legacyKind: .dialogBot
    )

    /// Whether the bot is offered new conversations' visitors.
    public var offersOnboarding: Bool {
        webhookStatus == .active && (onboardingFilter == .visitors || onboardingFilter == .both) && !(webhookEndpoint ?? "").isEmpty
    }

    func check() throws(CollabError) {
        _ = try Limits.checkName(name, field: "name")
        try Limits.checkOptional(description, field: "description", max: Limits.textLength)
        try Limits.checkOutbound(
            endpoint: webhookEndpoint, endpointField: "webhookEndpoint", apiVersion: webhookApiVersion, apiVersionField: "webhookApiVersion",
            secret: webhookSecret, secretField: "webhookSecret"
        )
        if let outboundTimeoutMillis, !Self.timeoutRange.contains(outboundTimeoutMillis) {
            throw .badRequest("outboundTimeoutMillis must be between \(Self.timeoutRange.lowerBound) and \(Self.timeoutRange.upperBound)")
        }
    }

    /// The defaults of `bots/create` for what a bot leaves out.
    mutating func fillDefaults() {
        webhookStatus = webhookStatus ?? .active
        webhookApiVersion = "V4"
        outboundTimeoutMillis = outboundTimeoutMillis ?? 5000
        onboardingOrder = onboardingOrder ?? 0
        reboardingOrder = reboardingOrder ?? 0
        offboardingOrder = offboardingOrder ?? 0
        onboardingFilter = onboardingFilter ?? Filter.none
        reboardingEnabled = reboardingEnabled ?? false
        offboardingFilter = offboardingFilter ?? Filter.none
        needsCounterpartPresence = needsCounterpartPresence ?? false
        messageStateHandledExternally = messageStateHandledExternally ?? false
        automaticTypingStateHandlingEnabled = automaticTypingStateHandlingEnabled ?? false
        onTimeoutBehavior = onTimeoutBehavior ?? .handOff
    }
}

extension AccountState {
    /// The account's dialog bots.
    public var bots: EntityTable<DialogBot> { declared.table(DialogBot.self) }

    /// Names the `BOT` person a new bot speaks as and makes its signing secret when the bot has none.
    /// - Throws: `conflict` when the account holds its most persons (a bot's person counts like any).
    func prepareBot(_ bot: inout DialogBot, context: OperationContext) throws(CollabError) {
        try checkRoomForPerson(limits: context.limits)
        bot.botPersonId = context.ids.make()
        if bot.webhookSecret?.isEmpty ?? true { bot.webhookSecret = context.ids.makeSecret() }
    }

    /// Stores the person ``prepareBot(_:context:)`` named for a new bot.
    mutating func addPerson(of bot: DialogBot, context: OperationContext, changes: inout ChangeSet) {
        guard let personId = bot.botPersonId else { return }
        let person = Person(
            id: personId, accountId: accountId, personSource: .virtual, sourceId: "dialog-bot:\(bot.id)", personType: .bot,
            authorizationRole: .webuser, displayName: bot.name ?? "", creationTimestamp: context.now, modificationTimestamp: context.now
        )
        storePerson(person)
        changes.put(person)
    }
}
