import CollabWire
import Foundation

/// Decodes `data` as `T` as the server does (a plain `JSONDecoder`); what decodes must encode and
/// decode again.
func roundTrip<T: Codable>(_ type: T.Type, _ data: Data) {
    guard let value = try? JSONDecoder().decode(T.self, from: data) else { return }
    let encoded: Data
    do {
        encoded = try JSONEncoder().encode(value)
    } catch {
        preconditionFailure("\(T.self) decoded but does not encode: \(error)")
    }
    do {
        _ = try JSONDecoder().decode(T.self, from: encoded)
    } catch {
        preconditionFailure("\(T.self) does not decode what it encoded: \(error)")
    }
}

/// The request bodies of the Web API, mobile, agent and control routes.
let decoders: [@Sendable (Data) -> Void] = [
    { roundTrip(WebQuery.self, $0) }, { roundTrip(WebWebhookRegistration.self, $0) }, { roundTrip(WebUser.self, $0) },
    { roundTrip(WebPersonRefBody.self, $0) }, { roundTrip(WebNamedArea.self, $0) }, { roundTrip(WebLoginBody.self, $0) },
    { roundTrip(WebApiKey.self, $0) }, { roundTrip(WebAccount.self, $0) }, { roundTrip(SendMessageRequest.self, $0) },
    { roundTrip(EndConversationRequest.self, $0) }, { roundTrip(WebUserPasswordContainer.self, $0) }, { roundTrip(WebTopicBody.self, $0) },
    { roundTrip(WebSetPasswordBody.self, $0) }, { roundTrip(WebSecureTokenRequest.self, $0) }, { roundTrip(WebRecipient.self, $0) },
    { roundTrip(WebPerson.self, $0) }, { roundTrip(WebLogoutBody.self, $0) }, { roundTrip(WebEndBody.self, $0) },
    { roundTrip(WebConversationCreation.self, $0) }, { roundTrip(WebBotPostMessage.self, $0) }, { roundTrip(WebAccountUserContainer.self, $0) },
    { roundTrip(TestTokenRequest.self, $0) }, { roundTrip(StartConversationRequest.self, $0) }, { roundTrip(StartCallRequest.self, $0) },
    { roundTrip(ResetRequest.self, $0) }, { roundTrip(PushRegistrationRequest.self, $0) }, { roundTrip(PresenceRequest.self, $0) },
    { roundTrip(NamedAreaRequest.self, $0) }, { roundTrip(ClockChange.self, $0) }, { roundTrip(ClientStartRequest.self, $0) },
    { roundTrip(AppStateRequest.self, $0) }, { roundTrip(AgentLoginRequest.self, $0) },
]

/// One input: a selector byte (which body type), then the JSON text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestJSON(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let selector = Int(bytes[0]) % decoders.count
    decoders[selector](Data(bytes.dropFirst()))
    return 0
}
