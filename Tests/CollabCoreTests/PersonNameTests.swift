import Testing

@testable import CollabCore

/// The one rule for the name apps and pushes show for a person (``Person/shownName``).
@Suite("A person's shown name")
struct PersonNameTests {
    static func person(displayName: String? = nil, firstName: String? = nil, lastName: String? = nil, username: String? = nil) -> Person {
        Person(
            id: "p", accountId: "a", personSource: .virtual, sourceId: "s", personType: .visitor, authorizationRole: .anonymousUser,
            username: username, firstName: firstName, lastName: lastName, displayName: displayName, creationTimestamp: 0, modificationTimestamp: 0
        )
    }

    @Test(
        "display name, else first and last name, else username; nil when none (empty counts as none)",
        arguments: [
            (person(displayName: "Alex S.", firstName: "Alex", lastName: "Smith", username: "alex"), "Alex S."),
            (person(firstName: "Alex", lastName: "Smith", username: "alex"), "Alex Smith"),
            (person(lastName: "Smith", username: "alex"), "Smith"),
            (person(displayName: "", firstName: "", username: "alex"), "alex"),
            (person(), nil),
            (person(displayName: "", firstName: "", lastName: "", username: ""), nil),
        ] as [(Person, String?)]
    )
    func shownName(_ person: Person, _ expected: String?) {
        #expect(person.shownName == expected)
    }
}
