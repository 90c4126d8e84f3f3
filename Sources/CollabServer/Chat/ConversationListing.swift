import CollabCore
import CollabWire
import Hummingbird

extension CollabEnvironment {
    /// `GET {mobile,agent}/v1/conversations`: a page of the caller's conversations (`state`, `limit`
    /// 1 to 1,000 with 1,000 the default, `before` the last id of the page before), newest first — for
    /// `state=ENDED` the last ended first.
    func conversationList(
        _ request: Request, context: CollabRequestContext, personId: String, accountId: String, for audience: ViewAudience
    ) throws -> ConversationList {
        let stateFilter = try request.query("state").map { text throws(CollabError) in
            guard let value = ConversationState(rawValue: text) else { throw .badRequest("unknown state '\(text)'") }
            return value
        }
        let limit = try request.integerQuery("limit", atLeast: 1) ?? ConversationList.maximumLimit
        guard limit <= ConversationList.maximumLimit else { throw CollabError.badRequest("limit must be 1 to \(ConversationList.maximumLimit)") }
        let before = request.query("before")
        return try read(context.principal) { state throws(CollabError) in
            let page = try state.conversationPage(ofPerson: personId, accountId: accountId, state: stateFilter, before: before, limit: limit)
            return ConversationList(conversations: page.conversations.map { state.view($0, for: audience) }, hasMore: page.hasMore)
        }
    }
}
