import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// `invitations/inviteAnonymousVisitorToConversationWithEmail` over real sockets: the invitation is
/// stored like a link invitation and the mail it would send is in the journal (method `EMAIL`).
@Suite("Invitations by email")
struct InvitationEmailTests {
    @Test("an email invitation is a stored visitor link invitation, and its mail is journaled, not sent")
    func emailInvitation() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            let app = visitor(server, device: "mail-phone", apiKey: "alpha-key")
            try await app.start()
            let conversation = try await app.startConversation(topic: "invite a friend")
            let admin = server.admin("alpha-admin", "pw-a").transport
            let body = #"{"conversationId":"\#(conversation.id)","email":"friend@example.com","nickname":"Friend"}"#
            let created = try await admin.raw("POST", "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithEmail", body: Data(body.utf8))
            #expect(created.status == 200, "\(String(decoding: created.body, as: UTF8.self))")
            #expect(VendorSchemaCheck.problems(created.body, schema: "ConversationInvitationData").isEmpty)
            let invitation = try #require(try JSONSerialization.jsonObject(with: created.body) as? [String: Any])
            let id = try #require(invitation["id"] as? String)
            #expect(invitation["invitationType"] as? String == "VISITOR_INVITATION" && invitation["invitationState"] as? String == "OPEN")

            let read = try await admin.raw("GET", "/app/rest/v4/invitations/\(id)/read")
            #expect(read.status == 200, "the invitation is stored")

            let control = server.control.transport
            let journal = try await control.raw("GET", "/_mock/v1/journal", query: [("method", "EMAIL")])
            let entries = try #require((try JSONSerialization.jsonObject(with: journal.body) as? [String: Any])?["entries"] as? [[String: Any]])
            #expect(entries.count == 1)
            #expect(entries.first?["path"] as? String == "/invitations/\(id)" && entries.first?["query"] as? String == "to=friend@example.com")
            let token = try #require(invitation["token"] as? String)
            #expect(!String(decoding: journal.body, as: UTF8.self).contains(token), "the journal does not carry the link's token")

            let beta = server.admin("beta-admin", "pw-b").transport
            let foreign = try await beta.raw("POST", "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithEmail", body: Data(body.utf8))
            #expect(foreign.status == 404, "another account's conversation")
        }
    }
}
