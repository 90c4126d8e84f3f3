import CollabCore
import CollabWire
import Foundation
import Testing

/// The resolver on its own: for a given state and change set, which pushes, webhook deliveries and bot
/// calls it yields — with the targets, keys and settings the state holds at that moment.
@Suite("Effect resolver")
struct EffectResolverTests {
    /// Vendor formats that name every body after what it is for, so a test reads back which body went where.
    struct LabelledFormats: VendorFormats {
        func webhookEventNames(for event: DomainEvent) -> [String] {
            event.kind == .newMessage ? [event.kind.rawValue] : []
        }

        func webhookBodies(for event: DomainEvent, wanted: Set<String>, in state: borrowing AccountState) -> [(name: String, body: Data)] {
            wanted.sorted().map { ($0, Data("\($0) \(event.message?.id ?? "")".utf8)) }
        }

        func pushWebhookBody(for push: ResolvedPush, in state: borrowing AccountState) -> Data? {
            Data("push to \(push.token) for \(state.persons[push.personId]?.sourceId ?? "nobody")".utf8)
        }

        func botBody(_ message: BotMessage, in state: borrowing AccountState) -> Data? {
            Data(message.eventType.utf8)
        }
    }

    let context = OperationContext(now: 5_000, ids: .system)
    let resolver = EffectResolver(formats: LabelledFormats())
    let apns = PushSettings.APNs(
        teamId: "TEAM123456", keyId: "KEY1234567", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nnot used to sign here\n-----END PRIVATE KEY-----",
        topic: "com.example.topic"
    )

    /// Account "a": an agent, a visitor with a device (APNs and PushKit tokens, encrypted), the account's
    /// APNs settings, and an active conversation between them.
    func scenario() throws -> (state: AccountState, agent: String, visitor: String, device: Device, conversation: Conversation) {
        var shards = ShardSet(directory: Directory())
        var changes = ChangeSet()
        _ = try shards.apply(
            seed: Seed(accounts: [
                .init(
                    name: "a", users: [.init(username: "agent", role: .registeredUser)], persons: [.init(sourceId: "v1", personType: .visitor)],
                    push: .init(apns: apns)
                )
            ]),
            passwordHashes: [:], context: context, changes: &changes
        )
        var state = try #require(shards.state(named: "a"))
        let agentUser = try #require(state.user(loginName: "agent"))
        let agent = try #require(state.person(ofUser: agentUser)).id
        let visitor = try #require(state.persons.values.first { $0.sourceId == "v1" }).id
        var device = Device(
            id: Device.recordId(personId: visitor, deviceId: "phone"), accountId: state.accountId, personId: visitor, deviceId: "phone",
            device: DeviceInfo(os: "iOS", appId: "com.example.app"), version: .encrypted, apnsEnvironment: "sandbox", registeredAt: 1
        )
        device.apnsToken = "apns-token"
        device.pushKitToken = "voip-token"
        device.keys = NotificationKeyRing(current: NotificationKey(id: "key-1", material: PushEncryption.makeKeyMaterial(), createdAt: 1))
        state.setDevice(device, changes: &changes)
        let conversation = try state.createConversation(
            ConversationInput(contextPersonId: visitor, participants: [(agent, .assignedAgent)]), accountId: state.accountId, context: context,
            changes: &changes
        )
        return (state, agent, visitor, device, conversation)
    }

    /// The change set of `sender` writing `text` into `conversationId`.
    func post(_ text: String, by sender: String, in conversationId: String, _ state: inout AccountState) throws -> (ChangeSet, ConversationMessage) {
        var changes = ChangeSet()
        let message = try state.postMessage(
            conversationId, senderPersonId: sender, text: text, clientMessageId: nil, isInternal: false, accountId: state.accountId, context: context,
            changes: &changes
        )
        return (changes, message)
    }

    /// An active bot that onboards visitors.
    static var greeter: DialogBot {
        var bot = DialogBot(name: "greeter", webhookEndpoint: "https://bot.example/hook")
        bot.webhookSecret = "bot-secret"
        bot.onboardingFilter = .visitors
        return bot
    }

    func register(_ events: [String], status: WebhookRegistration.Status = .active, in state: inout AccountState) throws -> WebhookRegistration {
        var changes = ChangeSet()
        let draft = WebhookRegistration(
            name: "hook \(events) \(status.rawValue)", endpoint: "https://hooks.example/in", events: events, secret: "s3cret", status: status
        )
        return try state.createEntity(draft, for: .control(of: state.accountId), context: context, changes: &changes)
    }

    @Test("an agent's message: one push per token of the visitor's device, with its key, the topic and the account's sinks at commit")
    func pushes() throws {
        var (state, agent, visitor, device, conversation) = try scenario()
        let (changes, _) = try post("hello", by: agent, in: conversation.id, &state)
        let effects = resolver.resolve(changes, in: state)
        let push = try #require(effects.pushes.first)
        #expect(effects.pushes.count == 1, "a new message goes to the APNs token only, not PushKit")
        #expect(push.personId == visitor && push.deviceRecordId == device.id && push.deviceId == "phone")
        #expect(push.transport == .apns && push.token == "apns-token" && push.version == .encrypted)
        #expect(push.key == device.keys?.current, "the key the content is sealed with is the device's current one")
        #expect(push.topic == "com.example.topic", "the account's APNs topic wins over the app id")
        #expect(push.settings?.apns == apns)
        #expect(push.content.text == "hello" && push.content.notificationCount == 1)
        #expect(push.createdAt == context.now)
        #expect(effects.webhooks.isEmpty && effects.botOffers.isEmpty, "nobody registered for anything")

        // A device that lost its token yields nothing; a device that is gone neither.
        var withoutToken = device
        withoutToken.apnsToken = nil
        var ignored = ChangeSet()
        state.setDevice(withoutToken, changes: &ignored)
        #expect(resolver.resolve(changes, in: state).pushes.isEmpty)
    }

    @Test("an incoming call goes to the PushKit token with a .voip topic; intents of other accounts are left alone")
    func voipAndOtherAccounts() throws {
        let (state, _, visitor, device, conversation) = try scenario()
        var changes = ChangeSet()
        let call = PushContent(type: .incomingCall, title: "Agent", text: "calling", conversationId: conversation.id, timestamp: 1)
        for (accountId, transport) in [(state.accountId, PushTransport.apnsVoIP), ("elsewhere", .apns)] {
            changes.push(
                PushIntent(accountId: accountId, deviceRecordId: device.id, personId: visitor, content: call, transports: [transport], createdAt: 7)
            )
        }
        let pushes = resolver.resolve(changes, in: state).pushes
        #expect(pushes.map(\.token) == ["voip-token"])
        #expect(pushes.first?.topic == "com.example.topic.voip")
    }

    @Test("webhooks: the event under the vendor's name and the push_notification event, to every active registration that wants them")
    func webhooks() throws {
        var (state, agent, _, _, conversation) = try scenario()
        let messages = try register(["conversation.new_message"], in: &state)
        let pushes = try register(["push_notification.new_message"], in: &state)
        _ = try register(["conversation.new_message"], status: .inactive, in: &state)
        let (changes, message) = try post("hi", by: agent, in: conversation.id, &state)
        let webhooks = resolver.resolve(changes, in: state).webhooks
        #expect(webhooks.count == 2, "the inactive registration gets nothing")
        let event = try #require(webhooks.first { $0.eventType == "conversation.new_message" })
        #expect(event.registrationId == messages.id && event.endpoint == "https://hooks.example/in" && event.secret == "s3cret")
        #expect(String(decoding: event.body, as: UTF8.self) == "conversation.new_message \(message.id)")
        #expect(event.createdAt == context.now)
        let push = try #require(webhooks.first { $0.eventType == "push_notification.new_message" })
        #expect(push.registrationId == pushes.id)
        #expect(String(decoding: push.body, as: UTF8.self) == "push to apns-token for v1", "the recipient is read at commit")

        // A push the person paused is recorded, not sent: no push_notification event either.
        var paused = ChangeSet()
        var intent = try #require(changes.pushes.first)
        intent.suppressedReason = "paused"
        paused.push(intent)
        let suppressed = resolver.resolve(paused, in: state)
        #expect(suppressed.pushes.first?.suppressedReason == "paused")
        #expect(suppressed.webhooks.isEmpty)

        // Without formats the resolver builds no body: pushes only.
        let plain = EffectResolver().resolve(changes, in: state)
        #expect(plain.webhooks.isEmpty && plain.pushes.count == 1)
    }

    @Test("bots: the onboarding offer of a new conversation, the counterpart's messages, the dialog's opening and closing")
    func bots() throws {
        var (state, agent, visitor, _, _) = try scenario()
        var setup = ChangeSet()
        let bot = try state.createEntity(Self.greeter, for: .control(of: state.accountId), context: context, changes: &setup)

        var created = ChangeSet()
        let conversation = try state.createConversation(
            ConversationInput(contextPersonId: visitor), accountId: state.accountId, context: context, changes: &created
        )
        let offer = try #require(resolver.resolve(created, in: state).botOffers.first)
        let dialog = try #require(state.openBotDialog(conversationId: conversation.id))
        #expect(offer.dialogToken == dialog.id && offer.bot.id == bot.id && offer.bot.webhookEndpoint == "https://bot.example/hook")
        #expect(String(decoding: offer.body, as: UTF8.self) == BotMessage.onboardingOfferEventType)

        var answered = ChangeSet()
        _ = try state.answerOnboardingOffer(token: dialog.id, accepted: true, context: context, changes: &answered)
        let opened = resolver.resolve(answered, in: state).webhooks
        #expect(opened.map(\.eventType) == ["outbound.bot.dialog.opened"])
        #expect(opened.first?.endpoint == bot.webhookEndpoint && opened.first?.secret == "bot-secret" && opened.first?.registrationId == bot.id)

        let (fromVisitor, _) = try post("hi bot", by: visitor, in: conversation.id, &state)
        #expect(resolver.resolve(fromVisitor, in: state).webhooks.map(\.eventType) == ["outbound.bot.dialog.message"])

        var ended = ChangeSet()
        _ = try state.endConversation(
            conversation.id, by: agent, reason: .canceled, comment: nil, accountId: state.accountId, context: context, changes: &ended
        )
        let closed = resolver.resolve(ended, in: state).webhooks.map(\.eventType)
        #expect(closed == ["outbound.bot.dialog.closed"], "ending the conversation closes its dialog in the same write")
        #expect(state.openBotDialog(conversationId: conversation.id) == nil)
    }

    @Test("a bot set inactive while its dialog is open is sent nothing")
    func inactiveBot() throws {
        var (state, _, visitor, _, _) = try scenario()
        var setup = ChangeSet()
        var bot = try state.createEntity(Self.greeter, for: .control(of: state.accountId), context: context, changes: &setup)
        let conversation = try state.createConversation(
            ConversationInput(contextPersonId: visitor), accountId: state.accountId, context: context, changes: &setup
        )
        let dialog = try #require(state.openBotDialog(conversationId: conversation.id))
        _ = try state.answerOnboardingOffer(token: dialog.id, accepted: true, context: context, changes: &setup)
        bot.webhookStatus = .inactive
        _ = try state.updateEntity(bot, for: .control(of: state.accountId), context: context, changes: &setup)
        let (fromVisitor, _) = try post("anyone?", by: visitor, in: conversation.id, &state)
        #expect(state.openBotDialog(conversationId: conversation.id)?.state == .open)
        #expect(resolver.resolve(fromVisitor, in: state).webhooks.isEmpty)
    }
}
