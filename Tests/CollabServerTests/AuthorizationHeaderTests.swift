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
}
