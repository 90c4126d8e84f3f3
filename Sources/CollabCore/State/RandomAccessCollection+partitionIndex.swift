extension RandomAccessCollection where Index == Int {
    /// The first index where `isAfter` holds, for a predicate that is false and then true along the
    /// collection (a binary search): where a sorted collection's elements pass a bound. `endIndex`
    /// when it holds for none.
    public func partitionIndex(where isAfter: (Element) -> Bool) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
