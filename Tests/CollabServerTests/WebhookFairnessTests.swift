import AsyncHTTPClient
import CollabCore
import CollabPush
import CollabWire
import Foundation
import NIOCore
import Testing

@testable import CollabServer

/// Webhook deliveries are queued per account and endpoint (issue 25, item 4): an endpoint that never
/// answers delays only its own deliveries, and a full account queue drops only that account's, shown in
/// the delivery log. The dispatcher runs in process against real endpoints: one that never answers
/// (``SilentEndpoint``) and one that records (``WebhookReceiver``).
@Suite("Webhook fairness")
struct WebhookFairnessTests {
    /// Runs a dispatcher of its own, meeting `rules`, for `body`; it stops (its in-flight deliveries
    /// cancelled) after.
    static func withDispatcher(
        _ settings: WebhookDispatcher.Settings, rules: FaultRules = FaultRules(), _ body: @Sendable (WebhookDispatcher) async throws -> Void
    ) async throws {
        let client = SharedHTTPClient(configuration: .init())
        let faults = FaultInjection(rules: rules, journal: RequestJournal(capacity: 100), clock: AdjustableClock())
        let dispatcher = WebhookDispatcher(settings: settings, client: client, botClient: client, faults: faults, logger: TestServer.logger)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await dispatcher.run() }
                try await body(dispatcher)
                group.cancelAll()
            }
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    static func deliveries(account: String, endpoint: String, count: Int, from first: Int = 0) -> [ResolvedWebhook] {
        (first..<first + count).map { index in
            ResolvedWebhook(
                registrationId: "\(account)-hook", accountId: account, name: "\(account) hook", endpoint: endpoint, secret: "secret",
                eventType: "webhook.ping", body: Data(#"{"n":\#(index)}"#.utf8), createdAt: Int64(index)
            )
        }
    }

    /// The dispatcher's 32 slots would all go to the hanging endpoint without shares; a request timeout of
    /// ten minutes keeps them held for the whole test, far beyond ``fairnessPatience``.
    static let settings = WebhookDispatcher.Settings(
        maxAttempts: 1, requestTimeout: .minutes(10), maxConcurrentDeliveries: 6, maxConcurrentPerAccount: 4, maxConcurrentPerEndpoint: 2
    )

    /// Waits until `endpoint` holds `count` connections: the deliveries that hang are in flight.
    static func waitForConnections(_ endpoint: SilentEndpoint, _ count: Int) async throws {
        let deadline = ContinuousClock.now + fairnessPatience
        while endpoint.connectionCount < count {
            guard ContinuousClock.now < deadline else { throw CollectorTimeout(description: "\(count) hanging deliveries", seen: []) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test("40 deliveries to an endpoint that never answers hold two slots; the account's other endpoint and another account deliver")
    func hangingEndpointDelaysOnlyItself() async throws {
        let silent = try await SilentEndpoint()
        let receiver = try await WebhookReceiver()
        try await Self.withDispatcher(Self.settings) { dispatcher in
            dispatcher.enqueue(Self.deliveries(account: "noisy", endpoint: silent.url, count: 40))
            try await Self.waitForConnections(silent, 2)
            dispatcher.enqueue(Self.deliveries(account: "noisy", endpoint: receiver.url, count: 3, from: 100))
            dispatcher.enqueue(Self.deliveries(account: "quiet", endpoint: receiver.url, count: 5))
            let arrived = try await receiver.wait(count: 8, timeout: fairnessPatience)
            #expect(arrived.count == 8)
            #expect(silent.connectionCount == 2, "the hanging endpoint never gets more than its share")
            #expect(dispatcher.counts(accountId: "noisy").queued == 38)
            #expect(dispatcher.droppedCount == 0)
        }
        try await silent.stop()
        try await receiver.stop()
    }

    @Test("beyond --webhook-queue-per-account the account's deliveries are dropped, typed and in the log; another account's still go")
    func fullAccountQueueDropsOnlyItsOwn() async throws {
        let silent = try await SilentEndpoint()
        let receiver = try await WebhookReceiver()
        var settings = Self.settings
        settings.queueCapacityPerAccount = 3
        try await Self.withDispatcher(settings) { dispatcher in
            dispatcher.enqueue(Self.deliveries(account: "noisy", endpoint: silent.url, count: 20))
            // At most two run and three wait: at least fifteen were dropped, each logged with its reason.
            let dropped = dispatcher.log.deliveries(matching: .init(state: "DROPPED"), limit: 100)
            #expect(dropped.count >= 15)
            #expect(dropped.count == dispatcher.droppedCount)
            #expect(
                dropped.allSatisfy { $0.accountId == "noisy" && $0.attempts.isEmpty && $0.reason?.contains("--webhook-queue-per-account") == true }
            )
            dispatcher.enqueue(Self.deliveries(account: "quiet", endpoint: receiver.url, count: 3))
            _ = try await receiver.wait(count: 3, timeout: fairnessPatience)
            #expect(dispatcher.log.deliveries(matching: .init(accountId: "quiet", state: "DROPPED"), limit: 100).isEmpty)
        }
        try await silent.stop()
        try await receiver.stop()
    }

    /// A dropped ping delivery of `account`, for the delivery-log tests.
    static func loggedDelivery(_ id: String, account: String) -> WebhookDelivery {
        WebhookDelivery(
            deliveryId: id, registrationId: "\(account)-hook", accountId: account, eventType: "webhook.ping",
            endpoint: "http://127.0.0.1:9/hooks", state: "DROPPED", attempts: [], createdAt: 0, bodyBytes: 2
        )
    }

    @Test("the delivery log keeps each account's newest entries: one account's flood pushes out only its own, then the largest gives way")
    func deliveryLogPerAccount() {
        let log = WebhookDeliveryLog(capacity: 3, serverCapacity: 5)
        func record(_ account: String, _ index: Int) { log.record(Self.loggedDelivery("\(account)\(index)", account: account)) }
        for index in 0..<2 { record("quiet", index) }
        for index in 0..<10 { record("noisy", index) }
        #expect(log.deliveries(matching: .init(), limit: 100).map(\.deliveryId) == [
            "quiet0", "quiet1", "noisy7", "noisy8", "noisy9",
        ])
        // A third account's entry passes the server's five: the account holding the most gives up its oldest.
        record("third", 0)
        #expect(log.deliveries(matching: .init(), limit: 100).map(\.deliveryId) == [
            "quiet0", "quiet1", "noisy8", "noisy9", "third0",
        ])
        #expect(log.deliveries(matching: .init(accountId: "quiet"), limit: 1).map(\.deliveryId) == ["quiet1"])

        // An account reset forgets the account's entries and frees their room.
        log.removeAll(accountId: "noisy")
        for index in 1..<4 { record("third", index) }
        #expect(log.deliveries(matching: .init(), limit: 100).map(\.deliveryId) == [
            "quiet0", "quiet1", "third1", "third2", "third3",
        ], "third0 went as the account passed its own three; the server's five hold no noisy entry")
    }

    @Test("past the server's capacity the largest account gives way, found by its size without a scan of the accounts")
    func deliveryLogLargestGivesWay() {
        let log = WebhookDeliveryLog(capacity: 5, serverCapacity: 12)
        for account in 0..<10 { log.record(Self.loggedDelivery("small\(account)-0", account: "small\(account)")) }
        // "big" reaches 3 with the server at 13: it is the largest, so it gives up its own oldest, again and again.
        for index in 0..<5 { log.record(Self.loggedDelivery("big-\(index)", account: "big")) }
        #expect(log.deliveries(matching: .init(), limit: 100).map(\.deliveryId)
            == (0..<10).map { "small\($0)-0" } + ["big-3", "big-4"])

        // Two accounts of six at the server's twelve: each of a third account's first two entries takes one from
        // whichever holds the most, so both end with five.
        let even = WebhookDeliveryLog(capacity: 8, serverCapacity: 12)
        for index in 0..<12 { even.record(Self.loggedDelivery("e\(index)", account: index < 6 ? "first" : "second")) }
        for index in 0..<2 { even.record(Self.loggedDelivery("t\(index)", account: "third")) }
        let sizes = ["first", "second", "third"].map {
            even.deliveries(matching: .init(accountId: $0), limit: 100).count
        }
        #expect(sizes == [5, 5, 2])
    }

    @Test("a WEBHOOK_FAILURE time-out rule on one account holds that account's slots only")
    func faultTimeoutDelaysOnlyItsAccount() async throws {
        let receiver = try await WebhookReceiver()
        let rules = FaultRules()
        // The noisy account's endpoint times out after ten minutes: its deliveries hold their slots.
        var rule = FaultRule(match: FaultMatch(), action: .webhookTimeout(millis: 600_000))
        rule.id = "hang"
        rule.accountId = "noisy"
        try rules.add(rule, owner: .account("noisy"), now: 0)
        try await Self.withDispatcher(Self.settings, rules: rules) { dispatcher in
            dispatcher.enqueue(Self.deliveries(account: "noisy", endpoint: receiver.url, count: 40))
            // The noisy account's share is in flight (waiting on the rule) before the quiet account's deliveries come.
            let deadline = ContinuousClock.now + fairnessPatience
            while dispatcher.counts(accountId: "noisy").running < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            dispatcher.enqueue(Self.deliveries(account: "quiet", endpoint: receiver.url, count: 5))
            let arrived = try await receiver.wait(count: 5, timeout: fairnessPatience)
            #expect(arrived.count == 5, "only the quiet account's deliveries reach the endpoint")
            #expect(dispatcher.counts(accountId: "noisy").running <= 2)
        }
        try await receiver.stop()
    }

    /// A dialog bot of `account` at `endpoint`, as the Web API stores one.
    static func bot(_ account: String, endpoint: String) throws -> DialogBot {
        let json = """
            {"id":"\(account)-bot","accountId":"\(account)","name":"\(account) bot","botPersonId":"\(account)-bot-person",
            "webhookStatus":"ACTIVE","webhookEndpoint":"\(endpoint)","webhookSecret":"secret","outboundTimeoutMillis":600000,
            "onboardingOrder":1,"reboardingOrder":1,"offboardingOrder":1,"onboardingFilter":"VISITORS","reboardingEnabled":false,
            "offboardingFilter":"NONE","needsCounterpartPresence":false,"messageStateHandledExternally":false,
            "automaticTypingStateHandlingEnabled":false,"onTimeoutBehavior":"HAND_OFF","creationTimestamp":0,"modificationTimestamp":0,"version":1}
            """
        return try JSONDecoder().decode(DialogBot.self, from: Data(json.utf8))
    }

    @Test(
        "an account whose dialog bot never answers holds its share of onboarding offers; another account's bot is asked at once",
        .timeLimit(.minutes(3))
    )
    func hangingBotDelaysOnlyItsAccount() async throws {
        let silent = try await SilentEndpoint()
        let receiver = try await BotReceiver(acceptOffers: true)
        let noisy = try Self.bot("noisy", endpoint: silent.url)
        let quiet = try Self.bot("quiet", endpoint: receiver.url)
        try await Self.withDispatcher(Self.settings) { dispatcher in
            let service = BotDialogService(dispatcher: dispatcher, logger: TestServer.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await service.run() }
                let body = Data(#"{"$_type":"BotOnboardingOfferRequest"}"#.utf8)
                // More offers than the old single pool of 256 asked at once: every one of them would hang.
                service.offer((0..<300).map { ResolvedBotOffer(dialogToken: "noisy-\($0)", accountId: "noisy", bot: noisy, body: body) })
                let lane = BotDialogService.limits.runningPerLane
                // The noisy account's share is being asked (its HTTP client opens at most a few connections per host
                // and queues the rest, which hang as well) before the quiet account's offers come.
                try await Self.waitForConnections(silent, 1)
                let deadline = ContinuousClock.now + fairnessPatience
                while service.counts(accountId: "noisy").running < lane, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                service.offer((0..<3).map { ResolvedBotOffer(dialogToken: "quiet-\($0)", accountId: "quiet", bot: quiet, body: body) })
                var answers: [BotDialogService.Answer] = []
                for await answer in service.answers {
                    answers.append(answer)
                    if answers.filter({ $0.accountId == "quiet" }).count == 3 { break }
                }
                let quietAccepted = answers.filter { $0.accountId == "quiet" }.allSatisfy { $0.accepted }
                #expect(quietAccepted, "the quiet account's bot took its offers")
                // Beyond the noisy account's queue its offers were declined at once (their conversations go to the queue).
                let declined = answers.filter { $0.accountId == "noisy" && !$0.accepted }.count
                let (queued, running) = service.counts(accountId: "noisy")
                // Never more than its share runs (a hanging offer whose connection fails under load may
                // have just ended, with the next not started yet).
                #expect((1...lane).contains(running) && queued <= BotDialogService.limits.queuedPerAccount, "\(running) running, \(queued) queued")
                #expect(declined + queued + running == 300, "every offer is asked, waiting or declined: \(declined) + \(queued) + \(running)")
                group.cancelAll()
            }
        }
        try await silent.stop()
        try await receiver.stop()
    }
}
