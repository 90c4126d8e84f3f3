import Testing

@testable import CollabServer

@Suite("The verified-credential cache")
struct CredentialCacheTests {
    @Test("a remembered credential answers while the hash is unchanged, and only for its own account")
    func remembers() {
        let cache = CredentialCache()
        #expect(cache.lookup(accountId: "a", username: "ann", password: "pw", currentHash: "h1") == nil)
        cache.remember(accountId: "a", username: "ann", password: "pw", userId: "u1", passwordHash: "h1")
        #expect(cache.lookup(accountId: "a", username: "ann", password: "pw", currentHash: "h1") == "u1")
        #expect(cache.lookup(accountId: "a", username: "ann", password: "other", currentHash: "h1") == nil)
        #expect(cache.lookup(accountId: "a", username: "ann", password: "pw", currentHash: "h2") == nil, "the password changed")
        #expect(cache.lookup(accountId: "b", username: "ann", password: "pw", currentHash: "h1") == nil)
        // The username's length is hashed first: moving a character from the name to the password differs.
        #expect(cache.lookup(accountId: "a", username: "annp", password: "w", currentHash: "h1") == nil)
    }

    @Test("an account that fills its part starts over alone: another account's entries stay")
    func boundedPerAccount() {
        let cache = CredentialCache(capacityPerAccount: 10)
        cache.remember(accountId: "quiet", username: "q", password: "pw", userId: "uq", passwordHash: "hq")
        for index in 0..<10 {
            cache.remember(accountId: "noisy", username: "n\(index)", password: "pw", userId: "u\(index)", passwordHash: "h")
        }
        #expect(cache.lookup(accountId: "noisy", username: "n9", password: "pw", currentHash: "h") == "u9")
        cache.remember(accountId: "noisy", username: "n10", password: "pw", userId: "u10", passwordHash: "h")
        #expect(cache.lookup(accountId: "noisy", username: "n0", password: "pw", currentHash: "h") == nil, "started over")
        #expect(cache.lookup(accountId: "noisy", username: "n10", password: "pw", currentHash: "h") == "u10")
        #expect(cache.lookup(accountId: "quiet", username: "q", password: "pw", currentHash: "hq") == "uq")
    }
}
