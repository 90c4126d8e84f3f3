import CollabCore
import CollabWire
import Hummingbird

/// The team operations beyond the entity layer's: `teams/getTeamOfCurrentUser` and
/// `teams/{teamId}/getChildTeams` (every team below, at any depth).
struct TeamRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.get, "getTeamOfCurrentUser", role: .registeredUser) { _, context in
            let team = try env.read(context.principal) { state throws(CollabError) in try state.teamOfCurrentUser(context.principal) }
            return JSONBody.response(EntityWire.json(team))
        }
        group.operation(.get, ":teamId/getChildTeams", role: .registeredUser) { _, context in
            let id = try context.pathParameter("teamId")
            let teams = try env.read(context.principal) { state throws(CollabError) in try state.childTeams(of: id, for: context.principal) }
            return JSONBody.response(WebList(type: Team.declaration.listType, items: teams.map { EntityWire.json($0) }))
        }
    }
}
