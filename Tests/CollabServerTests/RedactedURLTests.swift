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
}
