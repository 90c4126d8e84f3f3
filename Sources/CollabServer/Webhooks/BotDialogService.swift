import CollabCore
import CollabPush
import Foundation
import Logging
import ServiceLifecycle

/// Carries out dialog bots' onboarding offers (resolved at commit, see ``EffectResolver``): posts each
/// (the vendor's `outbound.bot.onboarding_offer`, answered with `BotBoardingOfferResponse`) and hands
/// the answer on to be recorded by a write of its own (``FollowUpWrites``). The bot's other events
/// (`bot.dialog.opened`, `.message`, `.closed`) are plain signed deliveries through the webhook dispatcher.
final class BotDialogService: Service {
    /// A bot's answer to an offer; a bot that refuses, fails or times out hands the conversation to its queue.
    struct Answer: Sendable {
        var accountId: String
        var dialogToken: String
        var accepted: Bool
    }

    /// Offers waiting for a bot's answer at most; past them a new conversation goes straight to its queue.
    static let maxPendingOffers = 256

    /// The answers, in the order they came, for the write that records them.
    let answers: AsyncStream<Answer>
    private let answerInput: AsyncStream<Answer>.Continuation
    private let offers: AsyncStream<ResolvedBotOffer>
    private let offerInput: AsyncStream<ResolvedBotOffer>.Continuation
    private let dispatcher: WebhookDispatcher
    private let logger: Logger

    init(dispatcher: WebhookDispatcher, logger: Logger) {
        self.dispatcher = dispatcher
        self.logger = logger
        (offers, offerInput) = AsyncStream.makeStream(of: ResolvedBotOffer.self, bufferingPolicy: .bufferingOldest(Self.maxPendingOffers))
        (answers, answerInput) = AsyncStream.makeStream(of: Answer.self)
    }

    /// Queues offers; never blocks.
    func offer(_ offers: [ResolvedBotOffer]) {
        for offer in offers {
            if case .dropped = offerInput.yield(offer) {
                logger.warning(
                    "too many onboarding offers waiting for dialog bots; the conversation goes to its queue", metadata: ["bot": "\(offer.bot.id)"]
                )
                answerInput.yield(Answer(accountId: offer.accountId, dialogToken: offer.dialogToken, accepted: false))
            }
        }
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await offers.forEach(concurrently: Self.maxPendingOffers) { self.answerInput.yield(await self.ask($0)) }
        } onGracefulShutdown: {
            self.offerInput.finish()
        }
        answerInput.finish()
    }

    /// Posts the offer and waits for the bot's answer, at most its `outboundTimeoutMillis`.
    private func ask(_ offer: ResolvedBotOffer) async -> Answer {
        var accepted = false
        do {
            let answer = try await dispatcher.call(bot: offer.bot, eventType: BotMessage.onboardingOfferEventType, body: offer.body)
            accepted = (try? JSONDecoder().decode(BotBoardingOfferResponseBody.self, from: answer))?.offerAccepted ?? false
        } catch {
            logger.notice("dialog bot did not take the onboarding offer", metadata: ["bot": "\(offer.bot.id)", "error": "\(error.message)"])
        }
        return Answer(accountId: offer.accountId, dialogToken: offer.dialogToken, accepted: accepted)
    }
}

/// `BotBoardingOfferResponse`.
struct BotBoardingOfferResponseBody: Codable {
    var type: String?
    var offerAccepted: Bool?

    enum CodingKeys: String, CodingKey { case type = "$_type", offerAccepted }
}
