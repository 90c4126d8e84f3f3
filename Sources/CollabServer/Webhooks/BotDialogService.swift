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

    /// How many offers wait for bots' answers at once, and how many may queue behind them: in all, per
    /// account and per bot, so one account's slow bots hold only their share (``FairQueue``). Past the
    /// queue bounds a new conversation goes straight to its queue.
    static let limits = FairQueue<ResolvedBotOffer>.Limits(
        running: 256, runningPerAccount: 64, runningPerLane: 32, queued: 4096, queuedPerAccount: 256
    )

    /// The answers, in the order they came, for the write that records them.
    let answers: AsyncStream<Answer>
    private let answerInput: AsyncStream<Answer>.Continuation
    private let offers = FairQueue<ResolvedBotOffer>(limits: BotDialogService.limits)
    private let dispatcher: WebhookDispatcher
    private let logger: Logger

    init(dispatcher: WebhookDispatcher, logger: Logger) {
        self.dispatcher = dispatcher
        self.logger = logger
        (answers, answerInput) = AsyncStream.makeStream(of: Answer.self)
    }

    /// Offers of `accountId` waiting and being asked.
    func counts(accountId: String) -> (queued: Int, running: Int) {
        offers.counts(account: accountId)
    }

    /// Queues offers, each in its account's queue for its bot; never blocks.
    func offer(_ offers: [ResolvedBotOffer]) {
        for offer in offers {
            do throws(FairQueue<ResolvedBotOffer>.Overflow) {
                try self.offers.enqueue(offer, account: offer.accountId, lane: offer.bot.id)
            } catch {
                logger.warning(
                    "too many onboarding offers waiting for dialog bots; the conversation goes to its queue",
                    metadata: [
                        "bot": "\(offer.bot.id)", "account": "\(offer.accountId)",
                        "reason": "\(error.reason(queue: "bot offer", accountOption: nil))",
                    ]
                )
                answerInput.yield(Answer(accountId: offer.accountId, dialogToken: offer.dialogToken, accepted: false))
            }
        }
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await offers.run { self.answerInput.yield(await self.ask($0)) }
        } onGracefulShutdown: {
            self.offers.finish()
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
