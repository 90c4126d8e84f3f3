import CollabCore
import Testing

@Suite("Sorted list")
struct SortedListTests {
    @Test("inserts and removals anywhere keep the elements in order and distinct, read on from any cursor either way")
    func againstASortedArray() {
        var list = SortedList<Int>()
        var reference: [Int] = []
        var numbers = SeededNumbers(state: 7)
        // Enough elements for runs to split, then removals for them to merge and go.
        for step in 0..<12_000 {
            let value = numbers.next(below: 5_000)
            let removing = step > 6_000 && numbers.next(below: 3) > 0
            if removing {
                let there = reference.contains(value)
                let removed = list.remove(value)
                #expect(removed == there)
                reference.removeAll { $0 == value }
            } else {
                let new = !reference.contains(value)
                let inserted = list.insert(value)
                #expect(inserted == new)
                if new { reference.append(value) }
            }
        }
        reference.sort()
        #expect(list.count == reference.count && Array(list.ascending()) == reference)
        #expect(Array(list.descending()) == reference.reversed())
        #expect(list.first == reference.first && list.last == reference.last)
        for cursor in [-1, 0, 1, 77, 2_500, 4_999, 5_000] {
            #expect(Array(list.ascending(after: cursor)) == reference.filter { $0 > cursor })
            #expect(Array(list.descending(before: cursor)) == reference.filter { $0 < cursor }.reversed())
            #expect(list.contains(cursor) == reference.contains(cursor))
        }
    }

    @Test("taking the first of a long line one by one leaves the rest in order; lists are equal by their elements")
    func drainFromTheFront() {
        var list = SortedList<Int>()
        for value in (0..<3_000).reversed() { list.insert(value) }
        for value in 0..<2_990 {
            let removed = list.remove(value)
            #expect(removed)
        }
        #expect(Array(list.ascending()) == Array(2_990..<3_000))
        var other = SortedList<Int>()
        for value in 2_990..<3_000 { other.insert(value) }
        #expect(list == other, "the same elements, whatever runs they fell into")
        for value in 2_990..<3_000 { list.remove(value) }
        #expect(list.isEmpty && list.first == nil && Array(list.descending()).isEmpty && Array(list.ascending(after: 5)).isEmpty)
    }
}
