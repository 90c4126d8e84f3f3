import CollabCore
import CollabWire
import Hummingbird

/// `/webhookregistrations/…`: create, read, getByName, readMultiple, search, update, delete, sendPing.
struct WebhookRoutes {
    let environment: CollabEnvironment
    let dispatcher: WebhookDispatcher

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        let dispatcher = self.dispatcher
        group.operation(.post, "create", role: .admin) { request, context in
            let body = try await env.decode(WebWebhookRegistration.self, from: request)
            try checkType(body)
            let input = try body.input()
            let registration = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.createWebhook(input, accountId: try ownAccount(body.accountId, context.principal), context: op, changes: &changes)
            }
            return JSONBody.response(WebWebhookRegistration(registration))
        }
        group.operation(.get, ":registrationId/read", role: .admin) { _, context in
            let id = try context.pathParameter("registrationId")
            let registration = try env.read(context.principal) { state throws(CollabError) in try state.webhook(id, for: context.principal) }
            return JSONBody.response(WebWebhookRegistration(registration))
        }
        group.operation(.get, "getByName", role: .admin) { request, context in
            let name = try request.requireQuery("name")
            let registration = try env.read(context.principal) { state throws(CollabError) in try state.webhook(named: name, for: context.principal) }
            return JSONBody.response(WebWebhookRegistration(registration))
        }
        group.operation(.post, "readMultiple", role: .admin) { request, context in
            let ids = try await env.decode([String].self, from: request)
            let registrations = try env.read(context.principal) { state throws(CollabError) in try state.webhooks(ids, for: context.principal) }
            return JSONBody.response(WebList(type: "WebhookRegistrationList", items: registrations.map(WebWebhookRegistration.init)))
        }
        group.operation(.post, "search", role: .admin) { request, context in
            let query = try await env.decode(WebQuery.self, from: request).searchQuery(expectedType: "WebhookRegistrationQuery")
            let page = try env.read(context.principal) { state throws(CollabError) in try state.searchWebhooks(query, for: context.principal) }
            return JSONBody.response(page.webResult("WebhookRegistrationResult", offset: query.offset) { WebWebhookRegistration($0) })
        }
        group.operation(.post, "update", role: .admin) { request, context in
            let body = try await env.decode(WebWebhookRegistration.self, from: request)
            try checkType(body)
            guard let id = body.id else { throw CollabError.badRequest("id is required") }
            let input = try body.input()
            let registration = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                try state.updateWebhook(id: id, version: body.version, input, for: context.principal, context: op, changes: &changes)
            }
            return JSONBody.response(WebWebhookRegistration(registration))
        }
        group.operation(.delete, ":registrationId/delete", role: .admin) { _, context in
            let id = try context.pathParameter("registrationId")
            try await env.write(context.principal) { state, changes, _ throws(CollabError) in try state.deleteWebhook(id, for: context.principal, changes: &changes) }
            return noContent
        }
        group.operation(.post, ":registrationId/sendPing", role: .admin) { _, context in
            let id = try context.pathParameter("registrationId")
            let registration = try env.read(context.principal) { state throws(CollabError) in try state.webhook(id, for: context.principal) }
            dispatcher.ping(registration)
            return noContent
        }
    }
}
