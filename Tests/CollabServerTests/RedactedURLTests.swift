@testable import CollabServer
import Testing

@Suite("Logged URLs")
struct RedactedURLTests {
    @Test("tokens, API keys and passwords are redacted from any logged URL, whatever their case or encoding")
    func redaction() {
        let url = "/agent/v1/cobrowsing/s1/frames?token=abc&TOKEN=def&%74oken=ghi&x-unblu-apikey=key&Password=pw&keep=1#frag"
        let logged = RedactedURL.string(url)
        for secret in ["abc", "def", "ghi", "=key", "=pw"] {
            #expect(!logged.contains(secret), "\(secret) in \(logged)")
        }
        #expect(logged.hasPrefix("/agent/v1/cobrowsing/s1/frames?"))
        #expect(logged.contains("keep=1"))
        #expect(logged.hasSuffix("#frag"))
        #expect(RedactedURL.string("http://hooks.example/x") == "http://hooks.example/x")
        #expect(RedactedURL.string("https://user:pa55@hooks.example:8443/x?token=t") == "https://REDACTED@hooks.example:8443/x?token=REDACTED")
    }

    @Test("any parameter named like a credential is redacted, in any spelling; ordinary ones are kept")
    func credentialLikeNames() {
        let secrets = [
            "accessToken", "deviceSecret", "callCredential", "credential", "sig", "signature", "api_key", "api-key", "clientSecret",
            "webhookSecret", "passwd", "pin", "token[]", "sessionToken", "x-unblu-authsession",
        ]
        for name in secrets {
            #expect(RequestJournal.redact(query: "\(name)=hunter2&after=5") == "\(name)=REDACTED&after=5", "\(name)")
        }
        for name in ["after", "limit", "account", "key", "kind", "state", "personId", "namedAreas"] {
            #expect(RequestJournal.redact(query: "\(name)=x") == "\(name)=x", "\(name)")
        }
    }
}
