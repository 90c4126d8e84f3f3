import CollabCore
import CollabWire
import Hummingbird

/// `/_mock/v1/faults`: list, add, replace and remove fault rules. Account admins manage their own
/// account's rules (a rule they make is confined to their account); super admins and the control token
/// see and manage every rule. A rule keeps the `id` it is posted with, as a seed file's rules do.
struct FaultRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.get("faults") { _, context in
            JSONBody.response(FaultRuleList(rules: env.faults.list(accountId: try context.inspectorConfinement())))
        }
        group.post("faults") { request, context in
            let submitted = try await env.decodeStrictly(FaultRule.self, from: request, what: "fault rule")
            if let id = submitted.id, !FaultRule.isValidId(id) { throw CollabError.badRequest("id must be 1 to 64 letters, digits, '-' or '_'") }
            let id = submitted.id ?? env.ids.make()
            let confinement = try context.inspectorConfinement()
            let now = env.clock.now()
            let rule = try submitted.checked(id: id, now: now, confinement: confinement, environment: env)
            // An account admin's rules count against their account's budget, the operator's against the server's.
            try env.faults.add(rule, owner: confinement.map(FaultRuleBook.Owner.account) ?? .server, now: now)
            return JSONBody.response(rule, status: .created)
        }
        group.put("faults/:id") { request, context in
            let id = try context.pathParameter("id")
            let confinement = try context.inspectorConfinement()
            let submitted = try await env.decodeStrictly(FaultRule.self, from: request, what: "fault rule")
            let rule = try submitted.checked(id: id, now: env.clock.now(), confinement: confinement, environment: env)
            // Ids are per account: the operator may name the account whose rule it means.
            let scope = try env.inspectedAccountId(request.query("account"), confinedTo: confinement)
            return JSONBody.response(try env.faults.replace(id, with: rule, accountId: scope))
        }
        group.delete("faults/:id") { request, context in
            let scope = try env.inspectedAccountId(request.query("account"), confinedTo: try context.inspectorConfinement())
            try env.faults.remove(try context.pathParameter("id"), accountId: scope)
            return noContent
        }
        group.delete("faults") { _, context in
            env.faults.removeAll(accountId: try context.inspectorConfinement())
            return noContent
        }
    }
}
