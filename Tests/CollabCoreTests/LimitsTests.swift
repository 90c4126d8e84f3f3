import CollabCore
import Testing

@Suite("Limits on what callers send")
struct LimitsTests {
    @Test("fits counts characters, not bytes, whichever way it takes")
    func fitsCountsCharacters() {
        #expect(Limits.fits("", 0))
        #expect(Limits.fits("abc", 3))
        #expect(!Limits.fits("abcd", 3))
        // Two bytes a character: past the limit in bytes, within it in characters.
        #expect(Limits.fits(String(repeating: "é", count: 255), 255))
        #expect(!Limits.fits(String(repeating: "é", count: 256), 255))
        // One character of many scalars (a family emoji) counts once.
        #expect(Limits.fits("👨‍👩‍👧‍👦", 1))
        #expect(!Limits.fits("👨‍👩‍👧‍👦x", 1))
    }
}
