import CollabCore
import CollabWire
import Foundation
import Hummingbird

/// `/bots/{dialogBotId}/sendPing`: the bot's create, read, update, delete, search and getByName come
/// from its declaration (``DialogBot``, ``EntityRoutes``).
struct BotRoutes {
    let environment: CollabEnvironment
    let dispatcher: WebhookDispatcher

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let dispatcher = self.dispatcher
        group.operation(.post, ":dialogBotId/sendPing", role: .admin) { _, context in
            let id = try context.pathParameter("dialogBotId")
            let bot = try env.read(context.principal) { state throws(CollabError) in try state.entity(DialogBot.self, id, for: context.principal) }
            return JSONBody.response(try await dispatcher.ping(try bot.outboundTarget(), accountId: bot.accountId, serviceName: "dialog bot"))
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
