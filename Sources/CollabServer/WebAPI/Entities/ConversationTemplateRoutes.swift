import CollabCore
import CollabWire
import Hummingbird

/// `conversationtemplates/getDefaultTemplateByEngagementType`: the template conversations of an engagement
/// type start from when they name none.
struct ConversationTemplateRoutes {
    let environment: CollabEnvironment

    func register(on group: RouterGroup<CollabRequestContext>) {
        let env = environment
        group.operation(.get, "getDefaultTemplateByEngagementType", role: .registeredUser) { request, context in
            // Absent, the vendor's default engagement type: a chat request.
            let type = try EngagementType(parsing: request.query("initialEngagementType"), field: "initialEngagementType", absent: .chatRequest)
            let template = try env.read(context.principal) { state throws(CollabError) in
                try state.defaultTemplate(for: type, principal: context.principal)
            }
            return JSONBody.response(EntityWire.json(template))
        }
    }
}
