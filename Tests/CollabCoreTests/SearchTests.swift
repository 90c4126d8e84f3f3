import CollabCore
import Testing

@Suite("Search")
struct SearchTests {
    struct Item {
        var id: String
        var name: String?
        var created: Int64
        var active: Bool
        var members: [String] = []
    }

    static let schema = SearchSchema<Item>(
        "Item",
        [
            "ID": { .of($0.id) }, "NAME": { .of($0.name) }, "LABEL": { .of($0.name) }, "CREATED": { .of($0.created) },
            "ACTIVE": { .of($0.active) },
        ],
        kinds: ["LABEL": .string, "ACTIVE": .boolean], lists: ["MEMBER_ID": { $0.members }]
    )

    static let items = [
        Item(id: "a", name: "Alpha", created: 10, active: true, members: ["p1", "p2"]),
        Item(id: "b", name: "beta", created: 20, active: false, members: ["p2"]),
        Item(id: "c", name: nil, created: 30, active: true),
        Item(id: "d", name: "Gamma", created: 40, active: false, members: ["p2", "p1", "p3"]),
    ]

    func run(_ filters: [SearchFilter], order: [SearchOrder] = [], offset: Int? = nil, limit: Int? = nil) throws -> [String] {
        try Self.schema.run(SearchQuery(filters: filters, orderBy: order, offset: offset, limit: limit), over: Self.items, id: \.id).items.map(\.id)
    }

    @Test("every operator")
    func operators() throws {
        #expect(try run([SearchFilter(field: "NAME", op: .equals(.string("beta")))]) == ["b"])
        #expect(try run([SearchFilter(field: "NAME", op: .notEquals(.string("beta")))]) == ["a", "c", "d"])
        #expect(try run([SearchFilter(field: "ID", op: .isIn([.string("a"), .string("d")]))]) == ["a", "d"])
        #expect(try run([SearchFilter(field: "ID", op: .notIn([.string("a"), .string("d")]))]) == ["b", "c"])
        #expect(try run([SearchFilter(field: "NAME", op: .isNull)]) == ["c"])
        #expect(try run([SearchFilter(field: "NAME", op: .isNotNull)]) == ["a", "b", "d"])
        #expect(try run([SearchFilter(field: "NAME", op: .contains("A"))]) == ["a", "b", "d"], "contains ignores case")
        #expect(try run([SearchFilter(field: "NAME", op: .startsWith("G"))]) == ["d"])
        #expect(try run([SearchFilter(field: "CREATED", op: .greaterThan(20))]) == ["c", "d"])
        #expect(try run([SearchFilter(field: "CREATED", op: .lowerThan(20))]) == ["a"])
        #expect(try run([SearchFilter(field: "CREATED", op: .inRange(from: 20, to: 30))]) == ["b", "c"])
        #expect(try run([SearchFilter(field: "CREATED", op: .notInRange(from: 20, to: 30))]) == ["a", "d"])
        #expect(try run([SearchFilter(field: "ACTIVE", op: .equals(.bool(true)))]) == ["a", "c"])
        #expect(
            try run([SearchFilter(field: "ACTIVE", op: .equals(.bool(true))), SearchFilter(field: "CREATED", op: .greaterThan(15))]) == ["c"],
            "filters combine with AND")
    }

    @Test("ordering, nulls first ascending, ties broken by id")
    func ordering() throws {
        #expect(try run([], order: [SearchOrder(field: "NAME")]) == ["c", "a", "b", "d"])
        #expect(try run([], order: [SearchOrder(field: "NAME", descending: true)]) == ["d", "b", "a", "c"])
        #expect(try run([], order: [SearchOrder(field: "ACTIVE"), SearchOrder(field: "CREATED", descending: true)]) == ["d", "b", "c", "a"])
    }

    @Test("paging")
    func paging() throws {
        let page = try Self.schema.run(SearchQuery(offset: 1, limit: 2), over: Self.items, id: \.id)
        #expect(page.items.map(\.id) == ["b", "c"])
        #expect(page.hasMoreItems)
        #expect(page.nextOffset == 3)
        let last = try Self.schema.run(SearchQuery(offset: 3, limit: 2), over: Self.items, id: \.id)
        #expect(last.items.map(\.id) == ["d"])
        #expect(!last.hasMoreItems)
        #expect(try Self.schema.run(SearchQuery(offset: 10), over: Self.items, id: \.id).items.isEmpty)
        #expect(try SearchQuery(limit: 5000).limit == SearchQuery.maximumLimit)
    }

    @Test("unknown fields and negative windows are rejected")
    func rejects() {
        #expect(throws: CollabError.self) { try run([SearchFilter(field: "COLOR", op: .isNull)]) }
        #expect(throws: CollabError.self) { try run([], order: [SearchOrder(field: "COLOR")]) }
        #expect(throws: CollabError.self) { try SearchQuery(offset: -1) }
        #expect(throws: CollabError.self) { try SearchQuery(limit: -1) }
        #expect(throws: CollabError.self, "a page of none would page forever") { try SearchQuery(limit: 0) }
    }

    @Test("a filter compares with texts of at most Limits.textLength bytes, counted in UTF-8")
    func textBound() throws {
        let most = String(repeating: "a", count: Limits.textLength)
        // One letter and combining marks: a single Character, thousands of bytes.
        let marked = "a" + String(repeating: "\u{0301}", count: Limits.textLength / 2)
        #expect(marked.count == 1)
        for op: FilterOperator in [.contains(most), .equals(.string(most)), .anyOf(["x", most])] {
            _ = try SearchQuery(filters: [SearchFilter(field: "NAME", op: op)])
        }
        for op: FilterOperator in [
            .contains(most + "a"), .contains(marked), .startsWith(marked), .equals(.string(marked)), .notIn([.string("x"), .string(marked)]),
            .allOf(["x", marked]),
        ] {
            #expect(throws: CollabError.self, "\(op)") {
                try SearchQuery(filters: [SearchFilter(field: "NAME", op: .isNull), SearchFilter(field: "NAME", op: op)])
            }
        }
        do throws(CollabError) {
            _ = try SearchQuery(filters: [SearchFilter(field: "NAME", op: .contains(marked))])
            Issue.record("a text of thousands of bytes in one Character was accepted")
        } catch {
            #expect(error.message.contains("searchFilters[0]") && error.kind == .badRequest)
        }
    }

    @Test("a filter's operator must be of its field's family, by type and by $_type")
    func operatorFamilies() throws {
        func refusal(_ filter: SearchFilter) -> String? {
            do {
                _ = try run([filter])
                return nil
            } catch { return (error as? CollabError)?.message ?? "\(error)" }
        }
        #expect(refusal(SearchFilter(field: "LABEL", op: .greaterThan(5)))?.contains("the LABEL filter does not allow GREATER_THAN") == true)
        #expect(refusal(SearchFilter(field: "NAME", op: .greaterThan(5))) == nil, "a field of no known family takes any operator")
        #expect(refusal(SearchFilter(field: "ID", op: .greaterThan(1)))?.contains("the ID filter does not allow") == true, "ID implies an id")
        let wrongFamily = SearchFilter(field: "LABEL", op: .equals(.string("beta")), operatorFamily: "Timestamp")
        #expect(refusal(wrongFamily)?.contains("EqualsStringOperator") == true)
        #expect(refusal(SearchFilter(field: "ACTIVE", op: .equals(.bool(true)), operatorFamily: "Boolean")) == nil)
        #expect(refusal(SearchFilter(field: "MEMBER_ID", op: .equals(.string("p1"))))?.contains("allows ALL_EQUAL, ALL_OF, ANY_OF") == true)
        #expect(refusal(SearchFilter(field: "LABEL", op: .anyOf(["x"])))?.contains("does not allow ANY_OF") == true)
        #expect(FilterOperator.typePrefix("GREATER_THAN_OR_NULL") == "GreaterThanOrNull")
        #expect(FilterOperator.typePrefix("equals") == nil)
    }

    @Test("list fields: ALL_OF, ANY_OF and ALL_EQUAL compare the lists")
    func lists() throws {
        #expect(try run([SearchFilter(field: "MEMBER_ID", op: .allOf(["p1", "p2"]))]) == ["a", "d"])
        #expect(try run([SearchFilter(field: "MEMBER_ID", op: .anyOf(["p3", "p9"]))]) == ["d"])
        #expect(try run([SearchFilter(field: "MEMBER_ID", op: .allEqual(["p2", "p1"]))]) == ["a"])
        #expect(try run([SearchFilter(field: "MEMBER_ID", op: .allEqual([]))]) == ["c"])
        #expect(try run([SearchFilter(field: "MEMBER_ID", op: .allOf([]))]) == ["a", "b", "c", "d"])
    }

    @Test("ties: by id, or in the candidates' own order when they have one")
    func ties() throws {
        // Sent in the same millisecond, with ids that sort against the order they were sent in.
        let sent = [
            Item(id: "z", name: "first", created: 5, active: true), Item(id: "m", name: "second", created: 5, active: true),
            Item(id: "a", name: "third", created: 5, active: true),
        ]
        let query = try SearchQuery(orderBy: [SearchOrder(field: "CREATED")])
        #expect(try Self.schema.run(query, over: sent, id: \.id).items.map(\.id) == ["a", "m", "z"])
        #expect(try Self.schema.run(query, overOrdered: sent).items.compactMap(\.name) == ["first", "second", "third"])
        let descending = try SearchQuery(orderBy: [SearchOrder(field: "CREATED", descending: true)], limit: 2)
        #expect(try Self.schema.run(descending, overOrdered: sent).items.compactMap(\.name) == ["first", "second"])
    }
}
