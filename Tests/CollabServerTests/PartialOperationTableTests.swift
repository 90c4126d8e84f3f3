import CollabCore
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// The operations issue 23's second part adds to tags that were partly routed (router mode): each
/// needs the role the vendor's spec gives it, bad input is a 400 naming the field, a missing or another
/// account's id is the vendor's 404, and none of it changes anything.
@Suite("Partly routed tags: roles, bad input and 404")
struct PartialOperationTableTests {
    /// The operations this part routes (paths as the spec writes them).
    static let paths: Set<String> = [
        "/accounts/getByName", "/accounts/getQuotaUsage", "/accounts/readMultiple", "/accounts/{accountId}/getAccountSecret",
        "/accounts/{accountId}/getIngressStatus", "/accounts/{accountId}/getRecordedMinutes", "/accounts/{accountId}/enableAccountIngress",
        "/accounts/{accountId}/disableAccountIngress", "/accounts/{accountId}/restartIngressMigration", "/global/getRecordedMinutes", "/global/read",
        "/global/update", "/global/installLicense", "/global/removeLicense",
        "/authenticator/logoutWithSecureToken", "/users/readMultiple", "/persons/searchBots", "/persons/createOrUpdateBot",
        "/persons/searchVisitorsByState", "/persons/{personId}/setNote", "/persons/{personId}/setStatusMessage",
        "/users/{userId}/setRandomPassword", "/persons/{personId}/setAway", "/users/transformVirtualToPhysical",
        "/invitations/inviteAnonymousVisitorToConversationWithEmail",
        "/bots/dialogMessageDelivered", "/bots/dialogMessageRead", "/bots/cancelPendingQuestion", "/bots/cancelPendingDialogQuestions",
        "/bots/restrictDialogCounterpart", "/fileuploadinterceptors/{interceptorId}/sendPing", "/messageinterceptors/{interceptorId}/sendPing",
        "/conversations/{conversationId}/setContextPerson", "/conversations/{conversationId}/setVisibility",
        "/conversations/{conversationId}/setStarred", "/conversations/{conversationId}/setAwaitedPersonType",
        "/conversations/{conversationId}/setScheduledTimestamp", "/conversations/{conversationId}/setLocale",
        "/conversations/{conversationId}/changeParticipantVisibility", "/conversations/{conversationId}/updateConfiguration",
        "/conversations/{conversationId}/updateText", "/conversations/{conversationId}/addExternalParticipant",
        "/conversations/{conversationId}/startRecording", "/conversations/{conversationId}/stopRecording",
        "/conversations/{conversationId}/getRecordingState", "/conversationhistory/{conversationId}/getConversationRecordings",
        "/invitations/getAcceptLink", "/invitations/{invitationId}/addSecondaryInvitationTarget",
        "/invitations/{invitationId}/cancelSecondaryInvitationTarget", "/invitations/startDeputyDelegation", "/authenticator/setDefaultLocale",
    ]

    /// Each with an unknown id and an empty body; the role is the spec's `x-required-role`.
    static var operations: [RoleRulesTests.Operation] {
        VendorOperations.all.filter { paths.contains($0.path) }.map { .init(vendor: $0, takesList: $0.path.hasSuffix("readMultiple")) }
    }

    @Test("the table covers every operation this part routes")
    func coverage() {
        #expect(Self.operations.count == Self.paths.count)
        #expect(
            Set(UnroutedOperations.owners.keys).isDisjoint(
                with: Self.paths.map { path in
                    "\(VendorOperations.all.first { $0.path == path }?.method ?? "") \(path)"
                }))
    }

    @Test("each role may call exactly the operations at or below the spec's role; probing changes nothing", .serialized, arguments: operations)
    func roles(operation: RoleRulesTests.Operation) async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in try await RoleRulesTests.expectRoles(operation, on: server) }
    }

    @Test("bad input is a 400 naming the field; a missing or another account's id is a 404; nothing changes")
    func badInputAndMissingIds() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let beta = try #require(server.server.environment.accountId(for: .accountName("beta")))
            let alpha = try #require(server.server.environment.accountId(for: .accountName("alpha")))
            let before = try server.stats()
            let tooMany = "[" + Array(repeating: #""x""#, count: Limits.readMultipleCount + 1).joined(separator: ",") + "]"
            let rows: [(HTTPRequest.Method, String, String?, String, Int, String)] = [
                (.get, "accounts/getByName", nil, "root", 400, "name"),
                (.get, "accounts/getByName?name=nowhere", nil, "root", 404, "nowhere"),
                (.post, "accounts/readMultiple", "{}", "root", 400, "array"),
                (.post, "accounts/readMultiple", tooMany, "root", 400, "1000"),
                (.get, "accounts/unknown/getAccountSecret", nil, "alpha-admin", 404, "unknown"),
                (.get, "accounts/\(beta)/getAccountSecret", nil, "alpha-admin", 404, beta),
                (.get, "accounts/\(beta)/getIngressStatus", nil, "alpha-admin", 404, beta),
                (.get, "accounts/\(beta)/getRecordedMinutes", nil, "alpha-admin", 404, beta),
                (.get, "accounts/\(alpha)/getRecordedMinutes?fromTime=yesterday", nil, "alpha-admin", 400, "fromTime"),
                (.get, "accounts/\(alpha)/getRecordedMinutes?fromTime=20&toTime=10", nil, "alpha-admin", 400, "fromTime"),
                (.get, "global/getRecordedMinutes?toTime=soon", nil, "alpha-admin", 400, "toTime"),
                (.post, "accounts/unknown/enableAccountIngress", nil, "root", 404, "unknown"),
                (.post, "users/readMultiple", #"{"ids":1}"#, "alpha-agent", 400, "array"),
                (.post, "persons/createOrUpdateBot", #"{"sourceId":"b","personType":"VISITOR"}"#, "alpha-admin", 400, "personType"),
                (.post, "persons/createOrUpdateBot", #"{"sourceId":"alpha-visitor"}"#, "alpha-admin", 409, "VISITOR"),
                (.post, "persons/createOrUpdateBot", #"{"firstName":"Bo"}"#, "alpha-admin", 400, "sourceId"),
                (.post, "persons/searchBots", #"{"limit":-1}"#, "alpha-agent", 400, "limit"),
                (
                    .post, "persons/searchVisitorsByState",
                    #"{"searchFilters":[{"field":"PAUSE_NOTIFICATIONS_MODE","operator":{"type":"EQUALS","value":"x"}}]}"#, "alpha-admin", 400,
                    "PAUSE_NOTIFICATIONS_MODE"
                ),
                (.post, "authenticator/logoutWithSecureToken", #"{"token":"x"}"#, "alpha-agent", 400, "x-unblu-apikey"),
                (.post, "authenticator/logoutWithSecureToken?x-unblu-apikey=alpha-key", "{}", "alpha-agent", 400, "token"),
                (.post, "authenticator/logoutWithSecureToken?x-unblu-apikey=alpha-key", #"{"token":"x","type":"SAML"}"#, "alpha-agent", 400, "type"),
                (
                    .post, "authenticator/logoutWithSecureToken?x-unblu-apikey=alpha-key", #"{"token":"not-a-jwt"}"#, "alpha-agent", 401,
                    "access token"
                ),
                (.post, "invitations/inviteAnonymousVisitorToConversationWithEmail", #"{"conversationId":"c"}"#, "alpha-admin", 400, "email"),
                (
                    .post, "invitations/inviteAnonymousVisitorToConversationWithEmail", #"{"conversationId":"c","email":"a b@x.example"}"#,
                    "alpha-admin", 400, "email"
                ),
                (
                    .post, "invitations/inviteAnonymousVisitorToConversationWithEmail", #"{"conversationId":"c","email":"nobody"}"#, "alpha-admin",
                    400, "email"
                ),
                (
                    .post, "invitations/inviteAnonymousVisitorToConversationWithEmail", #"{"conversationId":"unknown","email":"v@x.example"}"#,
                    "alpha-admin", 404, "unknown"
                ),
                (.post, "users/unknown/setRandomPassword", nil, "alpha-admin", 404, "unknown"),
                (.post, "users/transformVirtualToPhysical", "{}", "alpha-admin", 400, "username"),
                (.post, "global/update", #"{"text":{"k":{"en":"x"}}}"#, "root", 400, "text"),
                (.post, "global/update", #"{"$_type":"Account"}"#, "root", 400, "$_type"),
                (.post, "global/installLicense", nil, "root", 400, "licenseContent"),
                (.post, "global/installLicense", "  \n", "root", 400, "licenseContent"),
                (.post, "users/transformVirtualToPhysical", #"{"username":"beta-admin"}"#, "alpha-admin", 404, "beta-admin"),
                (.post, "persons/unknown/setAway", #"{"away":true}"#, "alpha-admin", 404, "unknown"),
                (.post, "persons/unknown/setNote", #"{"note":"n"}"#, "alpha-agent", 404, "unknown"),
                (.post, "persons/unknown/setStatusMessage", #"{"statusMessage":"s"}"#, "alpha-admin", 404, "unknown"),
                (.post, "bots/dialogMessageRead", #"{"messageId":"m"}"#, "alpha-admin", 400, "dialogToken"),
                (.post, "bots/dialogMessageDelivered", #"{"dialogToken":"t"}"#, "alpha-admin", 400, "messageId"),
                (.post, "bots/dialogMessageRead", #"{"dialogToken":"unknown","messageId":"m"}"#, "alpha-admin", 404, "dialogToken"),
                (.post, "bots/restrictDialogCounterpart", #"{"dialogToken":"t"}"#, "alpha-admin", 400, "maxChatInputLength"),
                (.post, "bots/cancelPendingQuestion", #"{"conversationId":"c"}"#, "alpha-admin", 400, "questionMessageId"),
                (.post, "fileuploadinterceptors/unknown/sendPing", nil, "alpha-admin", 404, "unknown"),
                (.post, "messageinterceptors/unknown/sendPing", nil, "alpha-admin", 404, "unknown"),
                (.post, "conversations/unknown/setContextPerson", #"{"personId":"p"}"#, "alpha-admin", 404, "unknown"),
                (.post, "conversations/unknown/startRecording", nil, "alpha-agent", 404, "unknown"),
                (.get, "conversationhistory/unknown/getConversationRecordings", nil, "alpha-agent", 404, "unknown"),
                (.post, "invitations/getAcceptLink", "{}", "alpha-agent", 400, "token"),
                (.post, "invitations/getAcceptLink", #"{"token":"123456"}"#, "alpha-agent", 404, "PIN or link"),
                (.post, "invitations/getAcceptLink?apiKey=nowhere", #"{"token":"123456"}"#, "alpha-agent", 401, "API key"),
                (.post, "invitations/unknown/addSecondaryInvitationTarget", "{}", "alpha-admin", 400, "personId"),
                (.post, "invitations/unknown/addSecondaryInvitationTarget", #"{"personId":"p"}"#, "alpha-admin", 404, "unknown"),
                (.post, "invitations/unknown/cancelSecondaryInvitationTarget", #"{"personId":"p"}"#, "alpha-admin", 404, "unknown"),
                (.post, "invitations/startDeputyDelegation", "{}", "alpha-admin", 400, "conversationId"),
                (
                    .post, "invitations/startDeputyDelegation", #"{"conversationId":"c","delegationLevel":"LEVEL_9"}"#, "alpha-admin", 400,
                    "delegationLevel"
                ),
                (.post, "invitations/startDeputyDelegation", #"{"conversationId":"unknown"}"#, "alpha-admin", 404, "unknown"),
            ]
            for (method, path, body, user, status, named) in rows {
                let password = user == "root" ? "root" : "pw-a"
                let answer = try await server.json(method, path, as: user, password: password, body: body)
                let message = answer.object["errorMessage"] as? String ?? ""
                #expect(answer.status == status && message.contains(named), "\(method) \(path) as \(user) → \(answer.status) \(message)")
            }
            #expect(try server.stats() == before, "bad input changed state")
        }
    }
}
