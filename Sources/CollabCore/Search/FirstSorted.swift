extension Array {
    /// The first `count` elements in the order `before` gives, sorted: a full sort when that is most of
    /// them, else one pass that keeps the smallest `count` in a sorted buffer, so a page near the start
    /// of a large search costs n·log(count) comparisons rather than n·log(n).
    func firstSorted(_ count: Int, by before: (Element, Element) -> Bool) -> [Element] {
        guard count > 0 else { return [] }
        guard count * 4 < self.count else { return Array(sorted(by: before).prefix(count)) }
        var kept: [Element] = []
        kept.reserveCapacity(count + 1)
        for element in self {
            if kept.count == count, let last = kept.last, !before(element, last) { continue }
            kept.insert(element, at: kept.partitionIndex { !before($0, element) })
            if kept.count > count { kept.removeLast() }
        }
        return kept
    }
}
