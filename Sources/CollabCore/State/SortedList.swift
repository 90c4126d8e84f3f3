/// A set of distinct elements kept in ascending order, read from any element onwards in either
/// direction, whose inserts and removals cost about the same at any size.
///
/// A single sorted array shifts every element behind a change: taking the first of 100,000 queued
/// conversations moves the other 99,999. Here the elements sit in runs of at most
/// ``maxRunLength``, found by a binary search over the runs' last elements, so a change shifts one
/// run's elements (at most ``maxRunLength``) plus, when a run splits or is merged away (once per
/// about half a run of changes), the references to the runs. Finding an element or a cursor costs
/// O(log n).
public struct SortedList<Element: Comparable & Sendable>: Sendable {
    /// The runs, each sorted and non-empty, every element of a run before every element of the next.
    private var runs: [[Element]] = []
    /// How many elements the list holds.
    public private(set) var count = 0

    /// The longest a run grows before it is split in two halves.
    static var maxRunLength: Int { 512 }
    /// The shortest a run gets before it is merged with a neighbour (a run alone may be shorter).
    static var minRunLength: Int { maxRunLength / 4 }

    public init() {}

    /// Whether the list holds no element.
    public var isEmpty: Bool { count == 0 }

    /// The smallest element.
    public var first: Element? { runs.first?.first }

    /// The largest element.
    public var last: Element? { runs.last?.last }

    /// Whether `element` is in the list.
    public func contains(_ element: Element) -> Bool {
        let run = runIndex(of: element)
        guard run < runs.count else { return false }
        let offset = runs[run].partitionIndex { !($0 < element) }
        return offset < runs[run].count && runs[run][offset] == element
    }

    /// Adds `element`; whether it was not there yet.
    @discardableResult
    public mutating func insert(_ element: Element) -> Bool {
        guard !runs.isEmpty else {
            runs = [[element]]
            count = 1
            return true
        }
        // Past the last element it joins the last run.
        let run = min(runIndex(of: element), runs.count - 1)
        let offset = runs[run].partitionIndex { !($0 < element) }
        if offset < runs[run].count, runs[run][offset] == element { return false }
        runs[run].insert(element, at: offset)
        count += 1
        if runs[run].count > Self.maxRunLength {
            let upper = Array(runs[run][(Self.maxRunLength / 2)...])
            runs[run].removeSubrange((Self.maxRunLength / 2)...)
            runs.insert(upper, at: run + 1)
        }
        return true
    }

    /// Removes `element`; whether it was there.
    @discardableResult
    public mutating func remove(_ element: Element) -> Bool {
        let run = runIndex(of: element)
        guard run < runs.count else { return false }
        let offset = runs[run].partitionIndex { !($0 < element) }
        guard offset < runs[run].count, runs[run][offset] == element else { return false }
        runs[run].remove(at: offset)
        count -= 1
        if runs[run].count < Self.minRunLength { mergeShortRun(at: run) }
        return true
    }

    /// Replaces `old` with `new` (either may be `nil`: an element only added, or only removed); nothing
    /// when they are equal. How an index moves a row whose key may have changed.
    public mutating func replace(_ old: Element?, with new: Element?) {
        guard old != new else { return }
        if let old { remove(old) }
        if let new { insert(new) }
    }

    /// The elements after `cursor` (from the smallest without one), ascending.
    public func ascending(after cursor: Element? = nil) -> Ascending {
        guard let cursor else { return Ascending(runs: runs, run: 0, offset: 0) }
        let run = runs.partitionIndex { cursor < $0[$0.count - 1] }
        guard run < runs.count else { return Ascending(runs: runs, run: runs.count, offset: 0) }
        return Ascending(runs: runs, run: run, offset: runs[run].partitionIndex { cursor < $0 })
    }

    /// The elements before `cursor` (from the largest without one), descending.
    public func descending(before cursor: Element? = nil) -> Descending {
        guard let cursor else { return Descending(runs: runs, run: runs.count - 1, offset: (runs.last?.count ?? 0) - 1) }
        // The last run whose first element is before the cursor holds the first element to read.
        let run = runs.partitionIndex { !($0[0] < cursor) } - 1
        guard run >= 0 else { return Descending(runs: runs, run: -1, offset: -1) }
        return Descending(runs: runs, run: run, offset: runs[run].partitionIndex { !($0 < cursor) } - 1)
    }

    /// The first run whose last element is not before `element` (`runs.count`: past every run).
    private func runIndex(of element: Element) -> Int {
        runs.partitionIndex { !($0[$0.count - 1] < element) }
    }

    /// A run fell short: it joins a neighbour (split again if that makes it too long), or goes when empty.
    private mutating func mergeShortRun(at run: Int) {
        guard runs.count > 1 else {
            if runs[run].isEmpty { runs.removeAll() }
            return
        }
        let lower = run > 0 ? run - 1 : run
        runs[lower].append(contentsOf: runs[lower + 1])
        runs.remove(at: lower + 1)
        if runs[lower].count > Self.maxRunLength {
            let half = runs[lower].count / 2
            let upper = Array(runs[lower][half...])
            runs[lower].removeSubrange(half...)
            runs.insert(upper, at: lower + 1)
        }
    }

    /// Elements in ascending order from a position.
    public struct Ascending: Sequence, IteratorProtocol {
        let runs: [[Element]]
        var run: Int
        var offset: Int

        public mutating func next() -> Element? {
            while run < runs.count {
                if offset < runs[run].count {
                    defer { offset += 1 }
                    return runs[run][offset]
                }
                run += 1
                offset = 0
            }
            return nil
        }
    }

    /// Elements in descending order from a position.
    public struct Descending: Sequence, IteratorProtocol {
        let runs: [[Element]]
        var run: Int
        var offset: Int

        public mutating func next() -> Element? {
            while run >= 0 {
                if offset >= 0 {
                    defer { offset -= 1 }
                    return runs[run][offset]
                }
                run -= 1
                offset = run >= 0 ? runs[run].count - 1 : -1
            }
            return nil
        }
    }
}

extension SortedList: Equatable {
    /// Lists are equal when they hold the same elements, however these fall into runs.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.ascending().elementsEqual(rhs.ascending())
    }
}
