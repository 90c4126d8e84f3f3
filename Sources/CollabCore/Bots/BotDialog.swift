/// A dialog between a dialog bot and one person of a conversation (the mock models onboarding
/// dialogs). Its id is the dialog token the bot names in `bots/sendDialogMessage` and `finishDialog`.
public struct BotDialog: Sendable, Codable, Equatable, Identifiable {
    /// Where the dialog is: offered to the bot, open, or finished.
    public enum State: String, Sendable, Codable {
        case offered = "OFFERED"
        case open = "OPEN"
        case finished = "FINISHED"
    }

    /// The dialog token.
    public var id: String
    public var accountId: String
    public var botId: String
    public var botPersonId: String
    public var conversationId: String
    public var counterpartPersonId: String
    /// `EBotDialogType`; always `ONBOARDING` in the mock.
    public var dialogType: String
    public var state: State
    /// `EBotDialogFinishReason` once finished (`DECLINED` when the bot refused or missed the offer).
    public var finishReason: String?
    public var creationTimestamp: Timestamp
    /// When an unanswered offer is given up and the conversation handed over (a backstop for an offer
    /// lost with a restart; the request itself times out after the bot's `outboundTimeoutMillis`).
    public var offerExpiresAt: Timestamp?
    /// The longest message the counterpart may send while the dialog is open (`bots/restrictDialogCounterpart`).
    public var maxChatInputLength: Int?

    public init(id: String, accountId: String, bot: DialogBot, conversationId: String, counterpartPersonId: String, creationTimestamp: Timestamp) {
        self.id = id
        self.accountId = accountId
        self.botId = bot.id
        self.botPersonId = bot.botPersonId ?? ""
        self.conversationId = conversationId
        self.counterpartPersonId = counterpartPersonId
        self.dialogType = "ONBOARDING"
        self.state = .offered
        self.creationTimestamp = creationTimestamp
        let twice = (bot.outboundTimeoutMillis ?? 5000).multiplied(saturating: 2)
        self.offerExpiresAt = creationTimestamp.adding(saturating: twice).adding(saturating: 1000)
    }
}

extension BotDialog: StorableEntity {
    public static var kind: EntityKind { .botDialog }
    public var storageAccountId: String? { accountId }
}
