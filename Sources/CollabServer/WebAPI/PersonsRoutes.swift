import CollabCore
import CollabWire
import Hummingbird

/// `/persons/…`: read, readState, getBySource, createOrUpdateVirtual, createOrUpdateBot, search, searchAgents, searchVisitors,
/// searchBots.
struct PersonsRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.get, ":personId/read", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("personId")
            let person = try env.read(context.principal) { state throws(CollabError) in
                state.webPerson(try state.person(id, for: context.principal), expand: expand)
            }
            return JSONBody.response(person)
        }
        group.operation(.get, "getBySource", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let sourceText = try request.requireQuery("personSource")
            guard let source = Person.Source(rawValue: sourceText) else {
                throw CollabError.badRequest("personSource must be USER_DB or VIRTUAL")
            }
            let sourceId = try request.requireQuery("sourceId")
            let person = try env.read(context.principal) { state throws(CollabError) in
                try state.person(source: source, sourceId: sourceId, for: context.principal)
            }
            return JSONBody.response(WebPerson(person, expand: expand))
        }
        for (path, bot) in [("createOrUpdateVirtual", false), ("createOrUpdateBot", true)] {
            group.operation(.post, RouterPath(path), role: .admin) { request, context in
                let expand = try Expansion(request)
                let body = try await env.decode(WebPerson.self, from: request)
                try checkType(body)
                let input = try body.input()
                let person = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    let accountId = try ownAccount(body.accountId, context.principal)
                    return bot
                        ? try state.createOrUpdateBotPerson(input, accountId: accountId, context: op, changes: &changes)
                        : try state.createOrUpdateVirtualPerson(input, accountId: accountId, context: op, changes: &changes)
                }
                return JSONBody.response(WebPerson(person, expand: expand))
            }
        }
        group.operation(.get, ":personId/readState", role: .admin) { _, context in
            let id = try context.pathParameter("personId")
            let personState = try env.read(context.principal) { state throws(CollabError) in
                let person = try state.person(id, for: context.principal)
                if person.personType == .agent {
                    return WebPersonState(personId: id, onlineState: state.presence(of: id).rawValue, agent: true)
                }
                // A visitor is online while one of its clients is started.
                return WebPersonState(personId: id, onlineState: state.clientSessions(ofPerson: id).isEmpty ? "OFFLINE" : "ONLINE", agent: false)
            }
            return JSONBody.response(personState)
        }
        group.operation(.post, ":personId/setNote", role: .registeredUser) { request, context in
            let expand = try Expansion(request)
            let id = try context.pathParameter("personId")
            let body = try await env.decode(WebPersonNoteBody.self, from: request)
            let person = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                state.webPerson(try state.setNote(body.note, personId: id, for: context.principal, context: op, changes: &changes), expand: expand)
            }
            return JSONBody.response(person)
        }
        for path in ["setStatusMessage", "setAway"] {
            group.operation(.post, RouterPath(":personId/\(path)"), role: .admin) { request, context in
                let id = try context.pathParameter("personId")
                let body = try await env.decode(WebPersonNoteBody.self, from: request)
                let now = env.clock.now()
                let answer = try await env.write(context.principal) { state, changes, op throws(CollabError) in
                    let person =
                        path == "setAway"
                        ? try state.setAway(try requireField(body.away, "away"), personId: id, for: context.principal, context: op, changes: &changes)
                        : try state.setStatusMessage(body.statusMessage, personId: id, for: context.principal, context: op, changes: &changes)
                    var web = WebAgentPersonState(person, now: now)
                    web.onlineState = state.presence(of: id).rawValue
                    return web
                }
                return JSONBody.response(answer)
            }
        }
        search("search", queryType: "PersonQuery", personType: nil, role: .admin, on: group)
        search("searchAgents", queryType: "PersonTypedQuery", personType: .agent, role: .registeredUser, on: group)
        search("searchVisitors", queryType: "PersonTypedQuery", personType: .visitor, role: .registeredUser, on: group)
        search("searchBots", queryType: "PersonTypedQuery", personType: .bot, role: .registeredUser, on: group)
    }

    private func search(
        _ path: String, queryType: String, personType: Person.PersonType?, role: AuthorizationRole, on group: RouterGroup<CollabRequestContext>
    ) {
        group.searchOperation(RouterPath(path), role: role, queryType: queryType, environment: environment) {
            state, query, request, context throws(CollabError) in
            let expand = try Expansion(request)
            return try state.searchPersons(query, type: personType, for: context.principal).webResult("PersonResult", offset: query.offset) {
                state.webPerson($0, expand: expand)
            }
        }
    }
}

/// `PersonsSetNoteBody`, `PersonsSetStatusMessageBody` and `PersonsSetAwayBody`.
struct WebPersonNoteBody: Decodable, Sendable {
    var note: String?
    var statusMessage: String?
    var away: Bool?
}
