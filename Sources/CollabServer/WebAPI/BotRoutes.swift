import CollabCore
import CollabWire
import Foundation
import Hummingbird

/// `/bots/…`: create, read, update, delete, search, getByName, sendPing for dialog bots.
struct BotRoutes {
    let environment: CollabEnvironment
    let dispatcher: WebhookDispatcher

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let dispatcher = self.dispatcher
        group.operation(.post, "create", role: .admin) { request, context in
            let body = try await env.decode(WebDialogBot.self, from: request)
            let input = try body.input()
            let bot = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.createBot(input, accountId: try ownAccount(body.accountId, context.principal), context: op, changes: &changes)
            }
            return JSONBody.response(WebDialogBot(bot))
        }
        group.operation(.get, ":dialogBotId/read", role: .admin) { _, context in
            let id = try context.pathParameter("dialogBotId")
            let bot = try env.read(context.principal) { state throws(CollabError) in try state.bot(id, for: context.principal) }
            return JSONBody.response(WebDialogBot(bot))
        }
        group.operation(.get, "getByName", role: .admin) { request, context in
            let name = try request.requireQuery("name")
            let bot = try env.read(context.principal) { state throws(CollabError) in try state.bot(named: name, for: context.principal) }
            return JSONBody.response(WebDialogBot(bot))
        }
        group.operation(.post, "search", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "DialogBotQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in
                try state.searchBots(query, for: context.principal).webResult("DialogBotResult", offset: query.offset) { WebDialogBot($0) }
            }
            return JSONBody.response(page)
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let body = try await env.decode(WebDialogBot.self, from: request)
            let input = try body.input()
            guard let id = body.id, !id.isEmpty else { throw CollabError.badRequest("id is required") }
            let bot = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateBot(id: id, version: body.version, input, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebDialogBot(bot))
        }
        group.operation(.delete, ":dialogBotId/delete", role: .admin) { _, context in
            let id = try context.pathParameter("dialogBotId")
            try await env.write(context.principal) { state, changes, _ throws(CollabError) in try state.deleteBot(id, for: context.principal, changes: &changes) }
            return noContent
        }
        group.operation(.post, ":dialogBotId/sendPing", role: .admin) { _, context in
            let id = try context.pathParameter("dialogBotId")
            let bot = try env.read(context.principal) { state throws(CollabError) in try state.bot(id, for: context.principal) }
            guard bot.webhookStatus == .active else { throw CollabError(.unavailable, "the dialog bot is \(bot.webhookStatus.rawValue)") }
            let target = OutboundTarget(
                name: "the dialog bot", endpoint: bot.webhookEndpoint, secret: bot.webhookSecret, timeoutMillis: bot.outboundTimeoutMillis
            )
            return JSONBody.response(try await dispatcher.ping(target, accountId: bot.accountId, serviceName: "dialog bot"))
        }
    }
}

/// The vendor's `PingRequest`, posted to a bot's endpoint.
struct BotPingRequest: Codable, Sendable {
    var type = "PingRequest"
    var accountId: String
    var serviceName = "dialog bot"
    var pingId: String

    enum CodingKeys: String, CodingKey { case type = "$_type", accountId, serviceName, pingId }
}

/// The vendor's `PingResponse`.
struct BotPingResponse: Codable, Sendable {
    var type: String? = "PingResponse"
    var pingId: String?

    enum CodingKeys: String, CodingKey { case type = "$_type", pingId }
}

/// `DialogBotData`. The webhook secret is accepted but never returned.
struct WebDialogBot: Codable, Sendable {
    var type: String? = "DialogBotData"
    var id: String?
    var creationTimestamp: Int64?
    var modificationTimestamp: Int64?
    var version: Int64?
    var accountId: String?
    var name: String?
    var description: String?
    var botPersonId: String?
    var webhookStatus: String?
    var webhookEndpoint: String?
    var outboundTimeoutMillis: Int64?
    var webhookApiVersion: String?
    var webhookSecret: String?
    var onboardingOrder: Int32?
    var reboardingOrder: Int32?
    var offboardingOrder: Int32?
    var onboardingFilter: String?
    var reboardingEnabled: Bool?
    var offboardingFilter: String?
    var needsCounterpartPresence: Bool?
    var messageStateHandledExternally: Bool?
    var automaticTypingStateHandlingEnabled: Bool?
    var onTimeoutBehavior: String?

    enum CodingKeys: String, CodingKey {
        case type = "$_type", id, creationTimestamp, modificationTimestamp, version, accountId, name, description, botPersonId, webhookStatus
        case webhookEndpoint, outboundTimeoutMillis, webhookApiVersion, webhookSecret, onboardingOrder, reboardingOrder, offboardingOrder
        case onboardingFilter, reboardingEnabled, offboardingFilter, needsCounterpartPresence, messageStateHandledExternally
        case automaticTypingStateHandlingEnabled, onTimeoutBehavior
    }

    init(_ bot: DialogBot) {
        showRecordFields(of: bot)
        name = bot.name
        description = bot.description
        botPersonId = bot.botPersonId
        webhookStatus = bot.webhookStatus.rawValue
        webhookEndpoint = bot.webhookEndpoint
        outboundTimeoutMillis = bot.outboundTimeoutMillis
        webhookApiVersion = "V4"
        onboardingOrder = bot.onboardingOrder
        reboardingOrder = bot.reboardingOrder
        offboardingOrder = bot.offboardingOrder
        onboardingFilter = bot.onboardingFilter.rawValue
        reboardingEnabled = bot.reboardingEnabled
        offboardingFilter = bot.offboardingFilter.rawValue
        needsCounterpartPresence = bot.needsCounterpartPresence
        messageStateHandledExternally = bot.messageStateHandledExternally
        automaticTypingStateHandlingEnabled = bot.automaticTypingStateHandlingEnabled
        onTimeoutBehavior = bot.onTimeoutBehavior.rawValue
    }

    /// The fields a create or update sets; `$_type`, when given, must be `DialogBotData`.
    func input() throws(CollabError) -> DialogBot.Input {
        if let type, type != "DialogBotData" { throw .badRequest("$_type must be 'DialogBotData', not '\(type)'") }
        var input = DialogBot.Input()
        input.name = name
        input.description = description
        input.webhookStatus = webhookStatus
        input.webhookEndpoint = webhookEndpoint
        input.webhookSecret = webhookSecret
        input.webhookApiVersion = webhookApiVersion
        input.outboundTimeoutMillis = outboundTimeoutMillis
        input.onboardingOrder = onboardingOrder
        input.reboardingOrder = reboardingOrder
        input.offboardingOrder = offboardingOrder
        input.onboardingFilter = onboardingFilter
        input.reboardingEnabled = reboardingEnabled
        input.offboardingFilter = offboardingFilter
        input.needsCounterpartPresence = needsCounterpartPresence
        input.messageStateHandledExternally = messageStateHandledExternally
        input.automaticTypingStateHandlingEnabled = automaticTypingStateHandlingEnabled
        input.onTimeoutBehavior = onTimeoutBehavior
        return input
    }
}
