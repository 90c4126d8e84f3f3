public import Foundation

/// The vendor's formats for what the ``EffectResolver`` finds: which webhook events a domain event stands
/// for, and the bodies of webhook events and of requests to dialog bots.
///
/// The resolver decides *whether* and *to whom* (by index lookups); a format only shapes bytes. It is
/// pure: a function of its arguments and of the account's state at commit, which it gets under the
/// account's lock and must not keep. The server supplies the vendor's JSON shapes.
public protocol VendorFormats: Sendable {
    /// The vendor webhook event names `event` stands for (checked before any body is built, so events
    /// nobody registered for cost no encoding).
    func webhookEventNames(for event: DomainEvent) -> [String]

    /// The bodies of the vendor events `event` stands for, for the names in `wanted`.
    func webhookBodies(for event: DomainEvent, wanted: Set<String>, in state: borrowing AccountState) -> [(name: String, body: Data)]

    /// The `*PushNotificationEvent` body of a push, for the registrations that want `push_notification.*`
    /// (its recipient and, for inbound requests, the visitor are read from `state`).
    func pushWebhookBody(for push: ResolvedPush, in state: borrowing AccountState) -> Data?

    /// The body of a request or event to a dialog bot.
    func botBody(_ message: BotMessage, in state: borrowing AccountState) -> Data?

    /// The `DeputyDelegationPushNotificationEvent` (or its revocation) for one deputy.
    func deputyDelegationBody(_ delegation: DeputyDelegation, in state: borrowing AccountState) -> Data?

    /// The event type and body that tell an external messenger channel of a reply in one of its
    /// conversations (`outbound.external_messenger.new_message` for V4 channels).
    func externalMessengerBody(
        _ message: ConversationMessage, channel: ExternalMessenger, contacts: [ExternalMessengerContact], in state: borrowing AccountState
    ) -> (eventType: String, body: Data)?
}

extension VendorFormats {
    /// No deputy bodies (formats that leave deputies out).
    public func deputyDelegationBody(_ delegation: DeputyDelegation, in state: borrowing AccountState) -> Data? { nil }

    /// No external messenger bodies (formats that leave external messengers out).
    public func externalMessengerBody(
        _ message: ConversationMessage, channel: ExternalMessenger, contacts: [ExternalMessengerContact], in state: borrowing AccountState
    ) -> (eventType: String, body: Data)? { nil }
}

/// An inbound request for an agent that one of the agent's deputies is told about (or no longer).
public struct DeputyDelegation: Sendable {
    /// `push_notification.deputy_delegation` or `push_notification.revoke_deputy_delegation`.
    public var eventName: String
    public var invitation: Invitation
    /// The deputy's person.
    public var deputy: Person
    /// The agent the request is addressed to.
    public var primaryAgent: Person
    public var timestamp: Timestamp
}

/// What the server tells a dialog bot: the vendor's V4 bot protocol, the outbound requests a bot
/// registered with `webhookApiVersion` V4 (every bot the Web API makes) is sent.
public enum BotMessage: Sendable {
    /// `outbound.bot.onboarding_offer`: a new conversation is offered to the bot.
    case onboardingOffer(BotDialog, Conversation)
    /// `outbound.bot.dialog.opened` (`BotDialogOpenRequest`): the bot took the offer.
    case dialogOpened(BotDialog, Conversation, at: Timestamp)
    /// `outbound.bot.dialog.message` (`BotDialogMessageRequest`): the counterpart wrote in the dialog's conversation.
    case dialogMessage(BotDialog, ConversationMessage)
    /// `outbound.bot.dialog.closed` (`BotDialogClosedRequest`): the dialog ended (finished by the bot, or its
    /// conversation ended).
    case dialogClosed(BotDialog, at: Timestamp)

    /// The event type of an onboarding offer.
    public static let onboardingOfferEventType = "outbound.bot.onboarding_offer"

    /// The event type named in the signed request's header.
    public var eventType: String {
        switch self {
        case .onboardingOffer: Self.onboardingOfferEventType
        case .dialogOpened: "outbound.bot.dialog.opened"
        case .dialogMessage: "outbound.bot.dialog.message"
        case .dialogClosed: "outbound.bot.dialog.closed"
        }
    }
}
