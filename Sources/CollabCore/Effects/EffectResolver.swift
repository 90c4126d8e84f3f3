import CollabWire

/// Turns what an operation recorded (its events and push intents) into ``ResolvedEffects``: the pushes
/// with their tokens, keys and sinks, the webhook deliveries with their endpoints, secrets and bodies,
/// and the dialog bots' offers and events.
///
/// The repository runs it for every write, after the operation and under the same account lock, so the
/// effects show exactly the state the write committed. It costs index lookups only — registrations by
/// event name, a device, a person, a dialog by conversation, a bot by id — never a scan; a body is
/// built only when a registration or a bot wants it.
public struct EffectResolver: Sendable {
    /// The vendor's shapes; without them no webhook or bot body is built (pushes still resolve).
    public let formats: (any VendorFormats)?

    public init(formats: (any VendorFormats)? = nil) {
        self.formats = formats
    }

    /// The effects of `changes` within `state`'s account (events and intents of other accounts are left
    /// to their own shard's resolution).
    public func resolve(_ changes: ChangeSet, in state: borrowing AccountState) -> ResolvedEffects {
        var effects = ResolvedEffects()
        for intent in changes.pushes where intent.accountId == state.accountId {
            resolvePush(intent, in: state, into: &effects)
        }
        for event in changes.events where event.accountId == state.accountId {
            resolveWebhooks(event, in: state, into: &effects)
            resolveDeputies(event, in: state, into: &effects)
            resolveBots(event, in: state, into: &effects)
            resolveExternalMessengers(event, in: state, into: &effects)
        }
        return effects
    }

    /// `events` with the shown names of their conversation's participants as `state` has them
    /// (``DomainEvent/participantNames``), so a live client sees names without asking again. Only events
    /// of `state`'s account that live clients receive and that carry a conversation are named: a look-up
    /// per participant.
    public func named(_ events: [DomainEvent], in state: borrowing AccountState) -> [DomainEvent] {
        var events = events
        for index in events.indices where events[index].accountId == state.accountId && !events[index].isWebhookOnly {
            guard let conversation = events[index].conversation else { continue }
            events[index].participantNames = state.participantNames(conversation)
        }
        return events
    }

    /// One push per transport the device still has a token for, and the `push_notification.*` event of
    /// each (unless the push is suppressed: a paused person's push goes nowhere).
    private func resolvePush(_ intent: PushIntent, in state: borrowing AccountState, into effects: inout ResolvedEffects) {
        guard let device = state.devices[intent.deviceRecordId] else { return }
        let settings = state.pushSettings[intent.accountId]
        for transport in intent.transports {
            guard let push = ResolvedPush(intent, to: device, over: transport, settings: settings) else { continue }
            effects.pushes.append(push)
            guard push.suppressedReason == nil, let formats, !state.webhooks.isEmpty else { continue }
            let name = intent.content.type.webhookEvent
            let registrations = state.webhooks(accountId: intent.accountId, wanting: name)
            guard !registrations.isEmpty, let body = formats.pushWebhookBody(for: push, in: state) else { continue }
            for registration in registrations {
                effects.webhooks.append(ResolvedWebhook(registration, eventType: name, body: body, createdAt: push.createdAt))
            }
        }
    }

    /// The deliveries of `event` under the vendor's names, to every registration that wants one.
    private func resolveWebhooks(_ event: DomainEvent, in state: borrowing AccountState, into effects: inout ResolvedEffects) {
        // Most accounts register nothing: they pay one comparison per event.
        guard let formats, !state.webhooks.isEmpty else { return }
        let names = formats.webhookEventNames(for: event)
        guard !names.isEmpty else { return }
        var wanting: [String: [WebhookRegistration]] = [:]
        for name in Set(names) {
            let registrations = state.webhooks(accountId: event.accountId, wanting: name)
            if !registrations.isEmpty { wanting[name] = registrations }
        }
        guard !wanting.isEmpty else { return }
        for (name, body) in formats.webhookBodies(for: event, wanted: Set(wanting.keys), in: state) {
            for registration in wanting[name] ?? [] {
                effects.webhooks.append(ResolvedWebhook(registration, eventType: name, body: body, createdAt: event.timestamp))
            }
        }
    }

    /// `push_notification.deputy_delegation` to each deputy of the agent an inbound request (an agent
    /// invitation or forwarding) is addressed to, and `push_notification.revoke_deputy_delegation` once it
    /// is redeemed or revoked. Deputies are found by index (relationships by agent user); a TEAM deputy
    /// stands for the team's users. A deputy delegation (`DEPUTY_INVITATION`) goes to the deputies it was
    /// offered to (its secondary targets not canceled); a deputy whose target is canceled
    /// (`cancelSecondaryInvitationTarget`) gets its revocation then.
    private func resolveDeputies(_ event: DomainEvent, in state: borrowing AccountState, into effects: inout ResolvedEffects) {
        guard let formats, event.kind == .invitationChanged, !state.webhooks.isEmpty, let invitation = event.invitation,
            [.agentInvitation, .agentForwarding, .deputyInvitation].contains(invitation.kind), let primaryId = invitation.targetId,
            let primary = state.persons[primaryId], primary.personSource == .userDB
        else { return }
        let name: String
        var canceled: String?
        switch event.detail["action"] {
        case "created": name = "push_notification.deputy_delegation"
        case "redeemed", "revoked": name = "push_notification.revoke_deputy_delegation"
        case "secondary_target_canceled" where invitation.kind == .deputyInvitation:
            name = "push_notification.revoke_deputy_delegation"
            canceled = event.detail[Invitation.canceledTargetDetail]
        default: return
        }
        let registrations = state.webhooks(accountId: event.accountId, wanting: name)
        guard !registrations.isEmpty else { return }
        let deputies: [Person] =
            if let canceled {
                state.persons[canceled].map { [$0] } ?? []
            } else if invitation.kind == .deputyInvitation {
                (invitation.secondaryTargets ?? []).filter { $0.responseState != .canceled }.compactMap { state.persons[$0.personId] }
            } else {
                state.deputyPersons(ofUser: primary.sourceId)
            }
        for deputy in deputies {
            let delegation = DeputyDelegation(
                eventName: name, invitation: invitation, deputy: deputy, primaryAgent: primary, timestamp: event.timestamp
            )
            guard let body = formats.deputyDelegationBody(delegation, in: state) else { continue }
            for registration in registrations {
                effects.webhooks.append(ResolvedWebhook(registration, eventType: name, body: body, createdAt: event.timestamp))
            }
        }
    }

    /// What the dialog bot of the event's conversation is sent: the onboarding offer of a new
    /// conversation, the counterpart's messages, and its dialog opening and closing.
    private func resolveBots(_ event: DomainEvent, in state: borrowing AccountState, into effects: inout ResolvedEffects) {
        guard let formats, !state.botDialogs.isEmpty else { return }
        switch event.kind {
        case .conversationOnboarding:
            guard let conversationId = event.conversation?.id, let dialog = state.openBotDialog(conversationId: conversationId),
                dialog.state == .offered, let bot = state.bots[dialog.botId], let conversation = state.conversations[conversationId],
                let body = formats.botBody(.onboardingOffer(dialog, conversation), in: state)
            else { return }
            effects.botOffers.append(ResolvedBotOffer(dialogToken: dialog.id, accountId: dialog.accountId, bot: bot, body: body))
        case .newMessage:
            guard let message = event.message, !message.isInternal, let dialog = state.openBotDialog(conversationId: message.conversationId),
                dialog.state == .open, message.senderPersonId == dialog.counterpartPersonId
            else { return }
            tellBot(of: dialog, .dialogMessage(dialog, message), at: message.serverTimestamp, formats: formats, in: state, into: &effects)
        case .botDialogOpened, .botDialogClosed:
            guard let token = event.detail["dialogToken"], let dialog = state.botDialogs[token] else { return }
            if event.kind == .botDialogClosed {
                tellBot(of: dialog, .dialogClosed(dialog, at: event.timestamp), at: event.timestamp, formats: formats, in: state, into: &effects)
            } else if let conversation = state.conversations[dialog.conversationId] {
                let message = BotMessage.dialogOpened(dialog, conversation, at: event.timestamp)
                tellBot(of: dialog, message, at: event.timestamp, formats: formats, in: state, into: &effects)
            }
        default:
            return
        }
    }

    /// A reply in a conversation bound to an external messenger channel, to the channel's endpoint
    /// (signed with its secret) while the channel delivers: every message but the channel's contacts' own
    /// and internal ones.
    private func resolveExternalMessengers(_ event: DomainEvent, in state: borrowing AccountState, into effects: inout ResolvedEffects) {
        guard let formats, event.kind == .newMessage, let message = event.message, !message.isInternal,
            let channelId = event.conversation?.externalMessengerChannelId, let conversation = event.conversation,
            let channel = state.declared.table(ExternalMessenger.self)[channelId], channel.delivers
        else { return }
        let contacts = state.receivingContacts(of: conversation, channelId: channelId)
        guard !contacts.isEmpty, !contacts.contains(where: { $0.personId == message.senderPersonId }),
            let reply = formats.externalMessengerBody(message, channel: channel, contacts: contacts, in: state)
        else { return }
        effects.webhooks.append(
            ResolvedWebhook(
                registrationId: channel.id, accountId: channel.accountId, name: "external messenger \(channel.name ?? channel.id)",
                endpoint: channel.webhookEndpoint ?? "", secret: channel.webhookSecret ?? "", eventType: reply.eventType, body: reply.body,
                createdAt: message.serverTimestamp
            )
        )
    }

    /// An event to the bot of `dialog`, signed with its secret; nothing while the bot is not ACTIVE.
    private func tellBot(
        of dialog: BotDialog, _ message: BotMessage, at time: Timestamp, formats: any VendorFormats, in state: borrowing AccountState,
        into effects: inout ResolvedEffects
    ) {
        guard let bot = state.bots[dialog.botId], bot.webhookStatus == .active, let body = formats.botBody(message, in: state) else { return }
        effects.webhooks.append(ResolvedWebhook(bot, eventType: message.eventType, body: body, createdAt: time))
    }
}
