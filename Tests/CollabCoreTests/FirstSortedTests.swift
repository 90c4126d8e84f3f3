@testable import CollabCore
import Testing

/// The page selection behind every search: the first `count` in order, whatever path it takes.
@Suite("First sorted")
struct FirstSortedTests {
    @Test("matches a full sort's prefix for every count, with ties kept in a total order", arguments: [0, 1, 3, 24, 25, 99, 100, 250])
    func matchesSortedPrefix(count: Int) {
        var generator = SystemRandomNumberGenerator()
        // (value, position): many equal values, ties broken by position as the searches do.
        let items = (0..<100).map { (Int.random(in: 0..<10, using: &generator), $0) }
        let before: ((Int, Int), (Int, Int)) -> Bool = { $0 < $1 }
        let expected = Array(items.sorted(by: before).prefix(count))
        let picked = items.firstSorted(count, by: before)
        #expect(picked.map(\.0) == expected.map(\.0) && picked.map(\.1) == expected.map(\.1))
    }
}
