import CollabCore
import Testing

@Suite("Limits on what callers send")
struct LimitsTests {
    @Test("fits counts code points, as JSON Schema's maxLength does: never Characters, never only bytes")
    func fitsCountsCodePoints() {
        #expect(Limits.fits("", 0))
        #expect(Limits.fits("abc", 3))
        #expect(!Limits.fits("abcd", 3))
        // Two bytes, one code point each: past the limit in bytes, within it in code points.
        #expect(Limits.fits(String(repeating: "é", count: 255), 255))
        #expect(!Limits.fits(String(repeating: "é", count: 256), 255))
        // A family emoji is one Character of 7 code points (four people, three joiners).
        #expect(Limits.fits("👨‍👩‍👧‍👦", 7))
        #expect(!Limits.fits("👨‍👩‍👧‍👦", 6))
        // A letter with thousands of combining marks is one Character: counted as what it holds.
        let marked = "a" + String(repeating: "\u{0301}", count: 4_000)
        #expect(marked.count == 1)
        #expect(!Limits.fits(marked, Limits.nameLength))
    }

    @Test("the field checks count code points too: one Character of many marks is refused, naming the field")
    func checksCountCodePoints() {
        let marked = "a" + String(repeating: "\u{0301}", count: Limits.nameLength)
        #expect(throws: CollabError.self) { try Limits.checkName(marked, field: "name") }
        #expect(throws: CollabError.self) { try Limits.checkOptional(marked, field: "topic") }
        #expect(throws: CollabError.self) { try Limits.check(marked, field: "description", max: Limits.nameLength) }
        #expect((try? Limits.checkName(String(repeating: "名", count: Limits.nameLength), field: "name")) != nil, "CJK: a code point each")
        #expect((try? Limits.checkName(String(repeating: "😀", count: Limits.nameLength), field: "name")) != nil, "beyond the BMP: one each")
    }
}
