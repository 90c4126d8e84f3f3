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
            let text = request.query("initialEngagementType") ?? EngagementType.chatRequest.rawValue
            guard let type = EngagementType(rawValue: text) else {
                let allowed = EngagementType.allCases.map(\.rawValue).joined(separator: ", ")
                throw CollabError.badRequest("initialEngagementType must be one of \(allowed)")
            }
            let template = try env.read(context.principal) { state throws(CollabError) in
                try state.defaultTemplate(for: type, principal: context.principal)
            }
            return JSONBody.response(EntityWire.json(template))
        }
    }
}
