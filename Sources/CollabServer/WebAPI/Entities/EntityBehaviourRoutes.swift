import CollabCore
import CollabWire
import Foundation
import Hummingbird

/// The operations of declared kinds that the layer's generic ones do not cover: labels on persons
/// and their look-ups, the deputies of an agent written at once, canned-response usage counts, the
/// account's record retention, and pings of suggestion sources, custom actions and external messengers.
struct EntityBehaviourRoutes {
    let environment: CollabEnvironment
    let dispatcher: WebhookDispatcher

    func register(on routes: RouterGroup<CollabRequestContext>) {
        registerLabels(on: routes)
        registerDeputiesAndUsage(on: routes)
        registerRecordRetention(on: routes.group("recordretention"))
        registerPings(on: routes)
    }

    private func registerLabels(on routes: RouterGroup<CollabRequestContext>) {
        let env = environment
        routes.operation(.post, "personlabels/getByScope", role: .registeredUser) { request, context in
            let body = try await env.decode(LabelScopeBody.self, from: request)
            let labels = try env.read(context.principal) { state throws(CollabError) in
                try state.personLabels(scope: body.scope ?? "", for: context.principal)
            }
            return JSONBody.response(WebList(type: PersonLabel.declaration.listType, items: labels.map { EntityWire.json($0) }))
        }
        routes.operation(.post, "personvisibilityrules/getByUsedLabelName", role: .admin) { request, context in
            let body = try await env.decode(LabelNameBody.self, from: request)
            let rules = try env.read(context.principal) { state throws(CollabError) in
                try state.personVisibilityRules(usingLabel: body.labelName ?? "", for: context.principal)
            }
            return JSONBody.response(WebList(type: "PersonVisibilityRuleDataList", items: rules.map { EntityWire.json($0) }))
        }
        for (path, change) in [("setLabels", AccountState.LabelChange.set), ("addLabels", .add), ("removeLabels", .remove)] {
            routes.operation(.post, RouterPath("persons/:personId/\(path)"), role: .registeredUser) { request, context in
                let expand = try Expansion(request)
                let id = try context.pathParameter("personId")
                let names = try await env.decode([String].self, from: request)
                let person = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    let person = try state.changeLabels(change, names: names, personId: id, for: context.principal, context: op, changes: &changes)
                    return state.webPerson(person, expand: expand)
                }
                return JSONBody.response(person)
            }
        }
    }

    private func registerDeputiesAndUsage(on routes: RouterGroup<CollabRequestContext>) {
        let env = environment
        routes.operation(.post, "deputyrelationships/writeAgentDeputies", role: .admin) { request, context in
            let body = try await env.decode(WriteAgentDeputiesBody.self, from: request)
            let deputies = body.definitions
            try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.writeAgentDeputies(agentUserId: body.agentUserId, deputies, for: context.principal, context: op, changes: &changes)
            }
            return noContent
        }
        routes.operation(.post, "cannedresponses/usage/count", role: .registeredUser) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "CannedResponseUsageCountQuery")
            let count = try env.read(context.principal) { state throws(CollabError) in
                try state.countEntities(CannedResponseUsage.self, query.filters, for: context.principal)
            }
            return JSONBody.response(CountResult(count: count))
        }
    }

    private func registerRecordRetention(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.get, "read", role: .registeredUser) { _, context in
            let retention = try env.read(context.principal) { state throws(CollabError) in try state.recordRetention(for: context.principal) }
            return JSONBody.response(EntityWire.json(retention))
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let draft = try await env.decodeEntity(RecordRetention.self, from: request)
            let retention = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateRecordRetention(draft, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(EntityWire.json(retention))
        }
    }

    /// `sendPing` posts the vendor's `PingRequest` to the entity's endpoint and answers its `PingResponse`.
    private func registerPings(on routes: RouterGroup<CollabRequestContext>) {
        let env = environment
        let dispatcher = self.dispatcher
        func ping<E: DeclaredEntity>(
            _ type: E.Type, role: AuthorizationRole, service: String, target: @escaping @Sendable (E) throws(CollabError) -> OutboundTarget
        ) {
            let declaration = E.declaration
            routes.operation(.post, RouterPath("\(declaration.path)/:\(declaration.idParameter)/sendPing"), role: role) { _, context in
                let id = try context.pathParameter(declaration.idParameter)
                let entity = try env.read(context.principal) { state throws(CollabError) in try state.entity(E.self, id, for: context.principal) }
                return JSONBody.response(try await dispatcher.ping(try target(entity), accountId: entity.accountId, serviceName: service))
            }
        }
        ping(SuggestionSource.self, role: .admin, service: "suggestion source") { source throws(CollabError) in
            guard source.outboundStatus != "DISABLED" else { throw CollabError(.unavailable, "the suggestion source is DISABLED") }
            return OutboundTarget(
                name: "the suggestion source", endpoint: source.outboundEndpoint ?? "", secret: source.outboundSecret ?? "",
                timeoutMillis: source.outboundTimeoutMillis ?? 5000
            )
        }
        ping(CustomAction.self, role: .admin, service: "custom action") { action throws(CollabError) in
            guard case .object(let webhook)? = action.triggerWebhook, case .string(let endpoint)? = webhook["endpoint"] else {
                throw CollabError.badRequest("the custom action has no triggerWebhook endpoint to ping")
            }
            let secret: String = if case .string(let secret)? = webhook["secret"] { secret } else { "" }
            return OutboundTarget(name: "the custom action's webhook", endpoint: endpoint, secret: secret, timeoutMillis: 5000)
        }
        ping(ExternalMessenger.self, role: .admin, service: "external messenger") { channel throws(CollabError) in
            // A channel that receives nothing is not pinged: a conflict with its state, not an outage.
            guard channel.delivers else {
                throw CollabError.conflict("the channel has no ACTIVE webhook endpoint (a CUSTOM channel with webhookStatus ACTIVE)")
            }
            return OutboundTarget(
                name: "the external messenger channel", endpoint: channel.webhookEndpoint ?? "", secret: channel.webhookSecret ?? "",
                timeoutMillis: channel.outboundTimeoutMillis ?? 5000
            )
        }
    }
}

/// `PersonLabelsGetByScopeBody`.
private struct LabelScopeBody: Decodable { var scope: String? }

/// `PersonVisibilityRulesGetByUsedLabelNameBody`.
private struct LabelNameBody: Decodable { var labelName: String? }

/// `WriteAgentDeputyRelationshipsBody`: the deputies of an agent by escalation level.
private struct WriteAgentDeputiesBody: Decodable {
    struct Definition: Decodable {
        var type: String?
        var id: String?
    }

    var agentUserId: String?
    var assistants: [Definition]?
    var level1: [Definition]?
    var level2: [Definition]?
    var level3: [Definition]?

    var definitions: [AccountState.DeputyDefinition] {
        [("ASSISTANTS", assistants), ("LEVEL_1", level1), ("LEVEL_2", level2), ("LEVEL_3", level3)].flatMap { level, list in
            (list ?? []).map { AccountState.DeputyDefinition(type: $0.type, id: $0.id, level: level) }
        }
    }
}

/// The vendor's `CountResult`.
private struct CountResult: Encodable {
    var type = "CountResult"
    var count: Int

    enum CodingKeys: String, CodingKey { case type = "$_type", count }
}
