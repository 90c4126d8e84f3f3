import CollabClient
import CollabCore
import CollabWire
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// `invitations/getAcceptLink`: a link built on the public URL that a visitor app follows to join the
/// conversation (over real sockets), under the same per-account guessing budget as the mobile API's
/// redemption (router mode).
@Suite("Invitation accept links")
struct InvitationAcceptLinkTests {
    @Test("an anonymous caller gets the accept link of a token; a visitor app following it joins; used, the token has no link")
    func linkAccepts() async throws {
        try await TestServer.with(seed: twoAccountSeed) { server in
            let host = visitor(server, device: "host-phone", apiKey: "alpha-key")
            try await host.start(liveEvents: false)
            let conversation = try await host.startConversation(topic: "bring a friend")
            let admin = server.admin("alpha-admin", "pw-a").transport
            let created = try await admin.raw(
                "POST", "/app/rest/v4/invitations/inviteAnonymousVisitorToConversationWithLink",
                body: Data(#"{"conversationId":"\#(conversation.id)"}"#.utf8)
            )
            let invitation = try #require(try JSONSerialization.jsonObject(with: created.body) as? [String: Any])
            let id = try #require(invitation["id"] as? String)
            let token = try #require(invitation["token"] as? String)

            let anonymous = server.anonymous.transport
            func acceptLink(_ token: String, apiKey: String = "alpha-key") async throws -> HTTPTransport.RawResponse {
                try await anonymous.raw(
                    "POST", "/app/rest/v4/invitations/getAcceptLink", query: [("apiKey", apiKey)], body: Data(#"{"token":"\#(token)"}"#.utf8)
                )
            }
            let answer = try await acceptLink(token)
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(VendorSchemaCheck.problems(answer.body, schema: "AcceptLinkData").isEmpty)
            let data = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            #expect(data["conversationId"] as? String == conversation.id)
            let links = try #require(data["links"] as? [[String: Any]])
            #expect(links.count == 1 && links.first?["type"] as? String == "ACCEPT_IN_VISITOR_DESK")
            let url = try #require(links.first?["url"] as? String)
            #expect(url.hasPrefix(server.baseURL + "/"), "the link is built on the server's public URL: \(url)")
            #expect(try await acceptLink(token, apiKey: "beta-key").status == 404, "another account's API key finds no such token")

            let friend = visitor(server, device: "friend-phone", apiKey: "alpha-key")
            try await friend.start(liveEvents: false)
            let joined = try await friend.acceptInvitation(link: try #require(URL(string: url)))
            let friendId = try #require(friend.session?.person.id)
            #expect(joined.id == conversation.id && joined.participants.contains { $0.personId == friendId })
            let read = try await admin.raw("GET", "/app/rest/v4/invitations/\(id)/read")
            let stored = try #require(try JSONSerialization.jsonObject(with: read.body) as? [String: Any])
            #expect(stored["invitationState"] as? String == "REDEEMED" && stored["redeemingPersonId"] as? String == friendId)
            #expect(try await acceptLink(token).status == 404, "a redeemed token has no accept link")
        }
    }

    @Test("wrong tokens tried through getAcceptLink spend the account's budget that the mobile API's redemption shares")
    func sharedBudget() async throws {
        try await PinGuessingTests.with(perAddress: 1_000, perAccount: 3) { server in
            let (visitor, pin) = try await PinGuessingTests.visitorAndPin(server, apiKey: "one-key", admin: "admin-one")
            let anonymous = try await server.call(.post, "/app/rest/v4/invitations/getAcceptLink?apiKey=one-key", body: #"{"token":"\#(pin)"}"#)
            #expect(anonymous.status == 200, "\(anonymous.text)")
            for n in 0..<3 {
                let guess = PinGuessingTests.wrong(pin, n)
                let answer = try await server.call(.post, "/app/rest/v4/invitations/getAcceptLink?apiKey=one-key", body: #"{"token":"\#(guess)"}"#)
                #expect(answer.status == .notFound)
            }
            #expect(try await PinGuessingTests.redeem(server, visitor, pin).status == .tooManyRequests, "the mobile API sees the same budget")
            let refused = try await server.call(.post, "/app/rest/v4/invitations/getAcceptLink?apiKey=one-key", body: #"{"token":"\#(pin)"}"#)
            #expect(refused.status == .tooManyRequests)
            let (_, otherPin) = try await PinGuessingTests.visitorAndPin(server, apiKey: "two-key", admin: "admin-two")
            let other = try await server.call(.post, "/app/rest/v4/invitations/getAcceptLink?apiKey=two-key", body: #"{"token":"\#(otherPin)"}"#)
            #expect(other.status == .ok, "another account's budget is its own")
        }
    }
}
