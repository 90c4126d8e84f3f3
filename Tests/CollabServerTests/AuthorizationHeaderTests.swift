import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

@Suite("The Authorization header, read once per request")
struct AuthorizationHeaderTests {
    @Test("scheme and credentials split at the first space, the scheme's case ignored, blanks trimmed")
    func splits() throws {
        let header = try #require(AuthorizationHeader("bAsIc   dXNlcjpwYXNz \t"))
        #expect(header.scheme == "basic")
        #expect(header.sentScheme == "bAsIc")
        #expect(header.credentials == "dXNlcjpwYXNz")
        for malformed in ["", "Basic", "Basic ", "NoSpaceAtAll", " Basic"] {
            #expect(AuthorizationHeader(malformed) == nil, "\(malformed.debugDescription)")
        }
    }

    @Test("basic credentials split at the first colon: a password may hold colons, a username may not")
    func basicPairs() throws {
        func basic(_ pair: String) -> (username: String, password: String)? {
            AuthorizationHeader("Basic " + Data(pair.utf8).base64EncodedString())?.basic
        }
        #expect(basic("user:pa:ss:")! == ("user", "pa:ss:"))
        #expect(basic("ünï:cödé")! == ("ünï", "cödé"))
        #expect(basic(":")! == ("", ""))
        // A colon followed by a combining mark is still the separator (it is one character with it).
        #expect(basic("user:\u{301}x")! == ("user", "\u{301}x"))
        #expect(basic("no-colon") == nil)
        #expect(AuthorizationHeader("Basic !!!")?.basic == nil)
        #expect(AuthorizationHeader("Basic " + Data([0xFF, 0x3A]).base64EncodedString())?.basic == nil, "not UTF-8")
    }

    @Test("a field sent once is read as sent; sent twice, its values are joined as the subscript joins them")
    func singleField() {
        var fields = HTTPFields()
        #expect(fields.single(.authorization) == nil)
        fields.append(HTTPField(name: .authorization, value: "Basic a"))
        fields.append(HTTPField(name: .accept, value: "*/*"))
        #expect(fields.single(.authorization) == "Basic a")
        fields.append(HTTPField(name: .authorization, value: "Basic b"))
        #expect(fields.single(.authorization) == "Basic a, Basic b")
        #expect(fields.single(.authorization) == fields[.authorization])
    }

    @Test("basic credentials decode as Foundation decodes base64: padding required, no blanks, no URL alphabet, no pad after a whole quantum")
    func base64AsFoundation() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ .:\n")
        var generator = SystemRandomNumberGenerator()
        var samples = ["", "=", "====", "dXNlcjpwYXNz", "dXNlcjpwYXM", "dXNlcjpwYXM=", "dXNlcjpwYQ==", "dXNlcjpwYQ", "dXNlcjpwYQ=", "dXNl cjpw",
                       "dXNlcjpwYQ==dXNl", "dXNlcjpw-_8=", "dXNlcjpw/+8=", "gA==", "dXNlcjr/", "YTpi\n", "x6g6=", "x6g6====", " OgV9",
                       "HtSq3pteAC=6=", "K0=6"]
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...16, using: &generator)
            samples.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for credentials in samples {
            // The header's credentials are read with blanks trimmed. Foundation also takes `=` after a whole
            // last quantum ("eHk6=", "eHk6===="), which the header's decoder, like RFC 4648, refuses.
            let trimmed = AuthorizationHeader.trimmingBlanks(Substring(credentials))
            let padding = trimmed.utf8.reversed().prefix { $0 == UInt8(ascii: "=") }.count
            let padsWholeQuantum = padding > 0 && (trimmed.utf8.count - padding) % 4 == 0
            let foundation = (padsWholeQuantum ? nil : Data(base64Encoded: trimmed))
                .flatMap { String(data: $0, encoding: .utf8) }.flatMap { decoded -> [String]? in
                // Split at the first colon byte, as the header is (a colon may carry a combining mark).
                guard let colon = decoded.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
                return [String(decoded[..<colon]), String(decoded[decoded.utf8.index(after: colon)...])]
            }
            let read = AuthorizationHeader("Basic \(credentials)")?.basic.map { [$0.username, $0.password] }
            // A header whose credentials are blank has none to decode.
            guard AuthorizationHeader("Basic \(credentials)") != nil else { continue }
            #expect(read == foundation, "\(credentials.debugDescription)")
        }
    }
}
