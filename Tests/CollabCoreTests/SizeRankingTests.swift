import CollabCore
import Testing

@Suite("Size ranking")
struct SizeRankingTests {
    @Test("the largest is an account of the highest bucket held, as accounts grow, shrink and leave")
    func largest() {
        var ranking = SizeRanking()
        #expect(ranking.largest == nil && ranking.count == 0)
        for (account, size) in [("a", 3), ("b", 7), ("c", 5)] { ranking.set(account, size: size) }
        #expect(ranking.largest == "b" && ranking.count == 3)
        ranking.set("b", size: 2)
        #expect(ranking.largest == "c")
        ranking.set("c", size: 0)
        #expect(ranking.largest == "a" && ranking.count == 2)
        ranking.set("a", size: 0)
        ranking.set("b", size: 0)
        #expect(ranking.largest == nil && ranking.count == 0)
    }

    @Test("with a granularity, sizes within one bucket tie, and a change inside a bucket moves nothing")
    func buckets() {
        var ranking = SizeRanking(granularity: 100)
        #expect(ranking.bucket(of: 0) == 0 && ranking.bucket(of: 1) == 1 && ranking.bucket(of: 100) == 1 && ranking.bucket(of: 101) == 2)
        #expect(SizeRanking.bucket(of: 250, granularity: 100) == ranking.bucket(of: 250))
        ranking.set("small", size: 150)
        ranking.set("large", size: 950)
        #expect(ranking.largest == "large")
        ranking.set("small", size: 920)
        #expect(Set(["small", "large"]).contains(ranking.largest ?? ""), "both hold between 901 and 1,000")
        ranking.set("large", size: 10)
        #expect(ranking.largest == "small")
    }
}
