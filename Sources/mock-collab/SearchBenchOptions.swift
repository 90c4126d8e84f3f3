import ArgumentParser
import CollabCore
import Foundation

/// The options and the report the in-process search benchmarks share (`bench entities`,
/// `bench conversation-search`): the table sizes, the queries timed per row, text or JSON.
struct SearchBenchOptions: ParsableArguments {
    @Option(help: "Table sizes to measure, comma-separated.")
    var sizes: String = "100,100000"

    @Option(help: "Queries timed per filter and size (the median is reported).")
    var repeats: Int = 200

    @Flag(help: "Print JSON instead of text.")
    var json = false

    /// The sizes, each at least 10.
    func counts() throws -> [Int] {
        let counts = sizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 >= 10 }), repeats > 0 else { throw ValidationError("sizes of at least 10, and repeats > 0") }
        return counts
    }

    /// The median of `repeats` timings of `search`, in microseconds; the search must find something.
    func median(_ search: () throws -> Int) rethrows -> Double {
        var samples: [Double] = []
        var found = 0
        for _ in 0..<repeats {
            let started = ContinuousClock.now
            found = try search()
            samples.append((ContinuousClock.now - started).seconds * 1e6)
        }
        precondition(found > 0, "the search found nothing")
        samples.sort()
        return samples[samples.count / 2]
    }

    /// For each size: builds the account with `account`, has `measure` time its queries (given the state,
    /// an admin, the size and where to put the medians by name), then prints every median.
    func run(
        account: (Int) throws -> (AccountState, Principal),
        measure: (_ state: AccountState, _ admin: Principal, _ count: Int, _ results: inout [String: Double]) throws -> Void
    ) throws {
        var results: [String: Double] = [:]
        for count in try counts() {
            let (state, admin) = try account(count)
            try measure(state, admin, count, &results)
        }
        try report(results)
    }

    /// Prints `results` by name, as text or JSON.
    func report(_ results: [String: Double]) throws {
        if json {
            let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for key in results.keys.sorted() { print("\(key): \(String(format: "%.1f", results[key] ?? 0))") }
        }
    }
}

extension SearchBenchOptions {
    /// An account's state holding the `count` records `record` makes (given each index and the account's
    /// id), loaded as a start loads them (so the indexes are built the same way), and an admin of it.
    static func account(
        holding count: Int, _ record: (_ index: Int, _ accountId: String) throws -> StoredRecord
    ) throws -> (AccountState, Principal) {
        let account = Account(id: "bench-account", name: "bench", creationTimestamp: 0, modificationTimestamp: 0)
        var records: [StoredRecord] = []
        records.reserveCapacity(count)
        for index in 0..<count { records.append(try record(index, account.id)) }
        let state = try AccountState.load(account: account, records: records, directory: Directory())
        let admin = Principal(accountId: account.id, userId: nil, personId: nil, role: .admin, method: .basic)
        return (state, admin)
    }
}
