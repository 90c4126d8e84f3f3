@testable import CollabCore
import CollabWire
import Foundation
import Testing

/// A search that asks for an order the table keeps reads the rows in that order and stops when its page
/// is full: it answers what a scan answers, ties and ranges included, and reads about a page of rows.
@Suite("Ordered searches")
struct OrderedSearchTests {
    struct Row: Sendable, Equatable {
        var id: String
        var created: Int64
        var ended: Int64?
        var tag: String
    }

    static let schema = SearchSchema<Row>(
        "Row",
        [
            "ID": { .of($0.id) },
            "CREATION_TIMESTAMP": { .of($0.created) },
            "END_TIMESTAMP": { $0.ended.map { .int($0) } ?? .null },
            "TAG": { .of($0.tag) },
        ], kinds: ["TAG": .string])
    static let byId = TableOrder<Row>.byId(0)
    static let byCreation = TableOrder<Row>(1) { $0.created }
    static let byEnd = TableOrder<Row>(2) { $0.ended }

    /// `count` rows with creation times that often tie (a tenth as many instants as rows), end times on
    /// two thirds of them, four tags; then a fifth of them changed and a tenth removed, so the orders
    /// are kept through updates and removals as well as inserts.
    static func table(_ count: Int, numbers: inout SeededNumbers) -> IndexedTable<Row> {
        var table = IndexedTable<Row>(orders: [byId, byCreation, byEnd])
        func row(_ index: Int) -> Row {
            let created = Int64(numbers.next(below: max(count / 10, 1)))
            let ended: Int64? = numbers.next(below: 3) == 0 ? nil : created + Int64(numbers.next(below: 50))
            // Ids in both cases, as real ones are: their order is not their folded order.
            let letter = numbers.next(below: 2) == 0 ? "r" : "R"
            return Row(id: "\(letter)\(numbers.next(below: 1_000_000))-\(index)", created: created, ended: ended, tag: "t\(numbers.next(below: 4))")
        }
        var ids: [String] = []
        for index in 0..<count {
            let new = row(index)
            table[new.id] = new
            ids.append(new.id)
        }
        for id in ids where numbers.next(below: 5) == 0 {
            var changed = row(0)
            changed.id = id
            table[id] = changed
        }
        for id in ids where numbers.next(below: 10) == 0 { table.removeValue(forKey: id) }
        return table
    }

    static func lookups(_ table: IndexedTable<Row>) -> SearchLookups {
        SearchLookups().adding("ID", table.idLookup)
            .ordering("ID", count: table.count, walk: table.walk(byId))
            .ordering("CREATION_TIMESTAMP", count: table.count, walk: table.walk(byCreation))
            .ordering("END_TIMESTAMP", count: table.count, walk: table.walk(byEnd))
    }

    func describe(_ page: SearchPage<Row>) -> String {
        "\(page.items.map(\.id)) more: \(page.hasMoreItems) next: \(page.nextOffset.map(String.init) ?? "-")"
    }

    @Test("every order, range, tie and page answers as a scan does")
    func sameAsScan() throws {
        var numbers = SeededNumbers(state: 7)
        let table = Self.table(600, numbers: &numbers)
        let lookups = Self.lookups(table)
        let orders: [[SearchOrder]] = [
            [],
            [SearchOrder(field: "CREATION_TIMESTAMP")],
            [SearchOrder(field: "CREATION_TIMESTAMP", descending: true)],
            [SearchOrder(field: "CREATION_TIMESTAMP", descending: true), SearchOrder(field: "TAG")],
            [SearchOrder(field: "CREATION_TIMESTAMP"), SearchOrder(field: "END_TIMESTAMP", descending: true)],
            [SearchOrder(field: "END_TIMESTAMP")],
            [SearchOrder(field: "END_TIMESTAMP", descending: true)],
            [SearchOrder(field: "TAG"), SearchOrder(field: "CREATION_TIMESTAMP", descending: true)],
            [SearchOrder(field: "ID")],
            [SearchOrder(field: "ID", descending: true)],
            [SearchOrder(field: "ID"), SearchOrder(field: "TAG")],
            [SearchOrder(field: "TAG", descending: true), SearchOrder(field: "ID", descending: true)],
        ]
        let filters: [[SearchFilter]] = [
            [],
            [SearchFilter(field: "TAG", op: .equals(.string("t2")))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .greaterThan(30))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .lowerThan(12))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: 20, to: 24)), SearchFilter(field: "TAG", op: .notEquals(.string("t0")))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .equals(.int(17)))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: 40, to: 10))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .greaterThan(.max))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .lowerThan(.min))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .greaterThan(10)), SearchFilter(field: "CREATION_TIMESTAMP", op: .lowerThan(50))],
            [SearchFilter(field: "END_TIMESTAMP", op: .greaterThan(40))],
            [SearchFilter(field: "END_TIMESTAMP", op: .isNull)],
            [SearchFilter(field: "END_TIMESTAMP", op: .lowerThanOrNull(20))],
            [SearchFilter(field: "END_TIMESTAMP", op: .inRange(from: 30, to: 45)), SearchFilter(field: "CREATION_TIMESTAMP", op: .greaterThan(35))],
            [SearchFilter(field: "ID", op: .isIn(table.keys.prefix(40).map { .string($0) }))],
            [SearchFilter(field: "TAG", op: .equals(.string("none")))],
        ]
        let windows: [(offset: Int, limit: Int)] = [(0, 1), (0, 10), (7, 25), (95, 10), (0, 1000), (590, 100), (.max, 5), (3, .max)]
        var walked = 0
        for orderBy in orders {
            for filter in filters {
                for window in windows {
                    let query = try SearchQuery(filters: filter, orderBy: orderBy, offset: window.offset, limit: window.limit)
                    let planned = try Self.schema.run(query, lookups: lookups, row: { table[$0] }, all: table.values, id: \.id)
                    let scanned = try Self.schema.run(query, over: table.values, id: \.id)
                    #expect(describe(planned) == describe(scanned), "\(orderBy) \(filter) \(window)")
                    if case .walk = lookups.plan(for: query) { walked += 1 }
                }
            }
        }
        #expect(walked > orders.count * windows.count, "most of these queries walk an order")
    }

    @Test("a page in a kept order reads about its own rows, however many the table holds")
    func readsAPage() throws {
        var numbers = SeededNumbers(state: 11)
        let table = Self.table(20_000, numbers: &numbers)
        let lookups = Self.lookups(table)
        func reads(_ query: SearchQuery) throws -> (page: SearchPage<Row>, reads: Int) {
            var reads = 0
            let page = try Self.schema.run(query, lookups: lookups, row: { reads += 1; return table[$0] }, all: table.values, id: \.id)
            return (page, reads)
        }
        let newest = try reads(SearchQuery(orderBy: [SearchOrder(field: "CREATION_TIMESTAMP", descending: true)], limit: 10))
        #expect(newest.page.items.count == 10 && newest.page.hasMoreItems)
        #expect(newest.reads == 11, "a page of ten reads ten rows and one more, of \(table.count)")
        // Creation times tie in groups of about ten: with a second sort key, a page reads its groups whole.
        let twoKeys = try reads(
            SearchQuery(orderBy: [SearchOrder(field: "CREATION_TIMESTAMP", descending: true), SearchOrder(field: "TAG")], limit: 10))
        #expect(twoKeys.page.items.count == 10 && twoKeys.reads < 100, "read \(twoKeys.reads)")
        let byId = try reads(SearchQuery(limit: 10))
        #expect(byId.reads == 11, "a query that names no order reads ten ids and one more")
        for descending in [false, true] {
            let explicit = try reads(SearchQuery(orderBy: [SearchOrder(field: "ID", descending: descending)], offset: 5, limit: 10))
            #expect(explicit.reads == 16, "ordered by ID (descending: \(descending)), a page reads its ids and one more")
            let scanned = try Self.schema.run(
                SearchQuery(orderBy: [SearchOrder(field: "ID", descending: descending)], offset: 5, limit: 10), over: table.values, id: \.id)
            #expect(explicit.page.items == scanned.items)
        }
        let idThenTag = try reads(SearchQuery(orderBy: [SearchOrder(field: "ID", descending: true), SearchOrder(field: "TAG")], limit: 10))
        #expect(idThenTag.reads == 11, "ids never tie: a second sort key after ID reads no group")
        let range = try reads(
            SearchQuery(filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: 500, to: 502))], orderBy: [SearchOrder(field: "TAG")]))
        #expect(!range.page.items.isEmpty && range.reads < 100, "a creation range reads the rows within it: \(range.reads)")
        let secondPage = try reads(SearchQuery(orderBy: [SearchOrder(field: "END_TIMESTAMP")], offset: 10, limit: 10))
        #expect(secondPage.reads == 21, "rows without an end time come first, by id; the second page reads up to its end and one more")
        // A filter the order does not help with reads until it has found the page (a tag holds a quarter).
        let tagged = try reads(SearchQuery(filters: [SearchFilter(field: "TAG", op: .equals(.string("t1")))], limit: 10))
        #expect(tagged.page.items.count == 10 && tagged.reads < 200, "\(tagged.reads)")
    }

    @Test("a small candidate list beats a walk, and a large one does not")
    func plans() throws {
        var numbers = SeededNumbers(state: 3)
        let table = Self.table(2_000, numbers: &numbers)
        let few = Array(table.keys.prefix(5))
        let lookups = Self.lookups(table)
        let pinned = try SearchQuery(filters: [SearchFilter(field: "ID", op: .isIn(few.map { .string($0) }))], limit: 10)
        guard case .candidates(let ids) = lookups.plan(for: pinned) else {
            Issue.record("five ids are read as candidates")
            return
        }
        #expect(Set(ids) == Set(few))
        let many = try SearchQuery(filters: [SearchFilter(field: "ID", op: .isIn(table.keys.prefix(1_500).map { .string($0) }))], limit: 10)
        guard case .walk = lookups.plan(for: many) else {
            Issue.record("1,500 of 1,800 rows match: a page is found sooner in order")
            return
        }
        guard case .scan = SearchLookups().plan(for: many) else {
            Issue.record("a table without look-ups or orders is scanned")
            return
        }
        let wideRange = try SearchQuery(filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .greaterThan(-1))], limit: 10)
        guard case .walk = lookups.plan(for: wideRange) else {
            Issue.record("a range holding every row is not read whole when a walk by id finds the page sooner")
            return
        }
        let oneInstant = try SearchQuery(filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .equals(.int(5)))], limit: 10)
        guard case .candidates(let atFive) = lookups.plan(for: oneInstant) else {
            Issue.record("the rows of one instant are read as candidates")
            return
        }
        #expect(Set(atFive) == Set(table.values.filter { $0.created == 5 }.map(\.id)))
        let tagOrder = try SearchQuery(
            filters: [SearchFilter(field: "END_TIMESTAMP", op: .greaterThan(60))], orderBy: [SearchOrder(field: "TAG")], limit: 10)
        guard case .candidates(let ended) = lookups.plan(for: tagOrder) else {
            Issue.record("a range on an ordered field gives candidates when the order asked for is not kept")
            return
        }
        #expect(Set(ended) == Set(table.values.filter { ($0.ended ?? .min) > 60 }.map(\.id)))
    }

    @Test("declared entities page through their timestamp, name and id orders as a scan would, hidden ones left out")
    func declaredEntities() throws {
        var numbers = SeededNumbers(state: 5)
        var table = EntityTable<CannedResponse>()
        let draft = try EntityWire.draft(CannedResponse.self, from: Data(#"{"title":"t","text":"x","ownerType":"ACCOUNT","ownerId":"a"}"#.utf8))
        var ids: [String] = []
        for index in 0..<1_500 {
            var response = draft
            response.id = "\(numbers.next(below: 2) == 0 ? "c" : "C")\(numbers.next(below: 100_000))-\(index)"
            response.creationTimestamp = Int64(numbers.next(below: 150))
            response.modificationTimestamp = numbers.next(below: 3) == 0 ? nil : response.creationTimestamp + Int64(numbers.next(below: 20))
            // Titles kept in order, folded: some differ from others only in case, and tie.
            response.title = "\(numbers.next(below: 2) == 0 ? "Title" : "title") \(numbers.next(below: 40))"
            response.text = "text \(numbers.next(below: 4))"
            table.put(response)
            ids.append(response.id)
        }
        for id in ids where numbers.next(below: 6) == 0 {
            var response = try #require(table[id])
            response.creationTimestamp = Int64(numbers.next(below: 150))
            response.modificationTimestamp = nil
            table.put(response)
        }
        for id in ids where numbers.next(below: 8) == 0 { table.remove(id) }
        // What the caller may not see is left out before paging.
        let visible: (CannedResponse) -> Bool = { $0.text != "text 3" }
        let fields = EntityTable<CannedResponse>.searchableFields
        let scan = SearchSchema<CannedResponse>(
            "CannedResponse", Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) }),
            kinds: Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.kind) }))
        let orders: [[SearchOrder]] = [
            [],
            [SearchOrder(field: "CREATION_TIMESTAMP", descending: true)],
            [SearchOrder(field: "MODIFICATION_TIMESTAMP")],
            [SearchOrder(field: "MODIFICATION_TIMESTAMP", descending: true), SearchOrder(field: "TITLE")],
            [SearchOrder(field: "TITLE"), SearchOrder(field: "CREATION_TIMESTAMP")],
            [SearchOrder(field: "TITLE", descending: true)],
            [SearchOrder(field: "TEXT")],
            [SearchOrder(field: "ID", descending: true)],
            [SearchOrder(field: "TITLE"), SearchOrder(field: "ID", descending: true)],
        ]
        let filters: [[SearchFilter]] = [
            [],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .inRange(from: 40, to: 60))],
            [SearchFilter(field: "MODIFICATION_TIMESTAMP", op: .greaterThan(100)), SearchFilter(field: "TEXT", op: .contains("1"))],
            [SearchFilter(field: "TITLE", op: .equals(.string("title 7")))],
            [SearchFilter(field: "CREATION_TIMESTAMP", op: .isIn([.int(3), .int(9), .int(149)]))],
        ]
        for orderBy in orders {
            for filter in filters {
                for (offset, limit) in [(0, 10), (13, 40), (0, 1_000)] {
                    let query = try SearchQuery(filters: filter, orderBy: orderBy, offset: offset, limit: limit)
                    let searched = try table.search(query, visible: visible)
                    let scanned = try scan.run(query, over: table.rows.values.filter(visible), id: \.id)
                    #expect(searched.items.map(\.id) == scanned.items.map(\.id), "\(orderBy) \(filter) \(offset) \(limit)")
                    #expect(searched.hasMoreItems == scanned.hasMoreItems && searched.nextOffset == scanned.nextOffset)
                }
            }
        }
        var looked = 0
        let newestFirst = try SearchQuery(orderBy: [SearchOrder(field: "CREATION_TIMESTAMP", descending: true)], limit: 10)
        let newest = try table.search(newestFirst) { looked += 1; return visible($0) }
        #expect(newest.items.count == 10 && looked < 30, "a newest-first page looks at about its own entities: \(looked) of \(table.count)")
        looked = 0
        let wide = try table.search(SearchQuery(filters: [SearchFilter(field: "CREATION_TIMESTAMP", op: .greaterThan(-1))], limit: 10)) {
            looked += 1
            return visible($0)
        }
        #expect(wide.items.count == 10 && looked < 30, "a range holding every entity is walked by id, not read whole: \(looked)")
        looked = 0
        let byTitle = try table.search(SearchQuery(orderBy: [SearchOrder(field: "TITLE", descending: true)], limit: 10)) {
            looked += 1
            return visible($0)
        }
        #expect(byTitle.items.count == 10 && looked < 60, "a page by title reads the ties it needs, not every entity: \(looked)")
        looked = 0
        let byId = try table.search(SearchQuery(orderBy: [SearchOrder(field: "ID", descending: true)], limit: 10)) {
            looked += 1
            return visible($0)
        }
        #expect(byId.items.count == 10 && looked < 30, "a page ordered by ID walks the ids: \(looked)")
        let oldest = table.rows.values.min { ($0.creationTimestamp, $0.id) < ($1.creationTimestamp, $1.id) }
        #expect(table.first(byOrdered: "CREATION_TIMESTAMP") == oldest?.id)
        let modified = table.rows.values.compactMap { response in response.modificationTimestamp.map { ($0, response.id) } }
        #expect(table.first(byOrdered: "MODIFICATION_TIMESTAMP") == modified.min { $0 < $1 }?.1, "the oldest with a value")
    }

    @Test("bounds from range filters")
    func bounds() {
        func of(_ ops: FilterOperator...) -> OrderBounds {
            OrderBounds.of(ops.map { SearchFilter(field: "F", op: $0) } + [SearchFilter(field: "G", op: .equals(.int(1)))], field: "F")
        }
        #expect(of() == .all)
        #expect(of(.greaterThan(5)) == OrderBounds(lower: 6, upper: nil))
        #expect(of(.lowerThan(5), .inRange(from: 0, to: 9)) == OrderBounds(lower: 0, upper: 4))
        #expect(of(.equals(.int(3)), .greaterThan(1)) == OrderBounds(lower: 3, upper: 3))
        #expect(of(.greaterThan(.max)).isEmpty && of(.lowerThan(.min)).isEmpty && of(.inRange(from: 2, to: 1)).isEmpty)
        #expect(of(.greaterThanOrNull(3), .isNull, .notInRange(from: 1, to: 2)) == .all, "operators that pass nulls or two ranges set no bound")
    }
}
