extension AsyncSequence where Element: Sendable, Failure == Never {
    /// Runs `body` for every element, at most `limit` runs at a time — the sequence is read only as fast
    /// as runs finish, so a bounded queue in front of it stays the back-pressure — and returns once the
    /// sequence has ended and every run has finished.
    public func forEach(concurrently limit: Int, _ body: @escaping @Sendable (Element) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for await element in self {
                if running >= limit {
                    await group.next()
                    running -= 1
                }
                running += 1
                group.addTask { await body(element) }
            }
        }
    }
}
