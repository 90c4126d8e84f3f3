extension AccountState {
    /// A dialog bot of the caller's account.
    public func bot(_ id: String, for principal: Principal) throws(CollabError) -> DialogBot {
        guard let bot = bots[id], principal.canAccess(accountId: bot.accountId) else { throw .notFound("DialogBot", id) }
        return bot
    }

    /// A dialog bot of the caller's account by name.
    public func bot(named name: String, for principal: Principal) throws(CollabError) -> DialogBot {
        _ = try callerAccountId(principal)
        guard let bot = bots.rows(Indexes.botByName, name).first else { throw CollabError(.notFound, "DialogBot named '\(name)' not found") }
        return bot
    }

    /// Searches the caller's bots.
    public func searchBots(_ query: SearchQuery, for principal: Principal) throws(CollabError) -> SearchPage<DialogBot> {
        _ = try callerAccountId(principal)
        return try SearchSchemas.dialogBot.run(query, over: bots.values, id: \.id)
    }

    /// Creates a bot and the `BOT` person it speaks as; names are unique within an account and a
    /// secret is generated when absent.
    public mutating func createBot(_ input: DialogBot.Input, accountId: String, context: OperationContext, changes: inout ChangeSet) throws(CollabError) -> DialogBot {
        try input.validate()
        try checkAccount(accountId)
        let name = try Limits.checkName(input.name, field: "name")
        guard bots.count(Indexes.botByName, name) == 0 else { throw .conflict("a dialog bot named '\(name)' already exists") }
        guard bots.count < DialogBot.maxPerAccount else { throw .conflict("the account has \(bots.count) dialog bots, the most it may have") }
        let id = context.ids.make()
        let person = Person(
            id: context.ids.make(), accountId: accountId, personSource: .virtual, sourceId: "dialog-bot:\(id)", personType: .bot, authorizationRole: .webuser,
            displayName: name, creationTimestamp: context.now, modificationTimestamp: context.now
        )
        storePerson(person)
        changes.put(person)
        var bot = DialogBot(
            id: id, accountId: accountId, name: name, description: nil, botPersonId: person.id, webhookStatus: .active, webhookEndpoint: "",
            webhookSecret: context.ids.makeSecret(), outboundTimeoutMillis: 5000, onboardingOrder: 0, reboardingOrder: 0, offboardingOrder: 0,
            onboardingFilter: .none, reboardingEnabled: false, offboardingFilter: .none, needsCounterpartPresence: false, messageStateHandledExternally: false,
            automaticTypingStateHandlingEnabled: false, onTimeoutBehavior: .handOff, creationTimestamp: context.now, modificationTimestamp: context.now, version: 1
        )
        bot.apply(input)
        bots[bot.id] = bot
        changes.put(bot)
        return bot
    }

    /// Updates a bot at the version the caller last saw; the secret is kept when absent.
    public mutating func updateBot(
        id: String, version: Int64?, _ input: DialogBot.Input, for principal: Principal, context: OperationContext, changes: inout ChangeSet
    ) throws(CollabError) -> DialogBot {
        var bot = try self.bot(id, for: principal)
        try Self.checkVersion(version, current: bot.version, entity: "DialogBot")
        try input.validate()
        let name = try Limits.checkName(input.name, field: "name")
        if bots.ids(Indexes.botByName, name).contains(where: { $0 != id }) { throw .conflict("a dialog bot named '\(name)' already exists") }
        bot.apply(input)
        bot.version += 1
        bot.modificationTimestamp = context.now
        bots[id] = bot
        changes.put(bot)
        return bot
    }

    /// Deletes a bot (its person stays, so conversations it spoke in still name it).
    public mutating func deleteBot(_ id: String, for principal: Principal, changes: inout ChangeSet) throws(CollabError) {
        _ = try bot(id, for: principal)
        bots[id] = nil
        changes.delete(.dialogBot, id)
    }
}

extension SearchSchemas {
    /// `EDialogBotSearchFilterField`.
    public static let dialogBot = SearchSchema<DialogBot>("DialogBot", [
        "ID": { .of($0.id) },
        "NAME": { .of($0.name) },
        "BOT_PERSON_ID": { .of($0.botPersonId) },
        "CREATION_TIMESTAMP": { .of($0.creationTimestamp) },
        "MODIFICATION_TIMESTAMP": { .of($0.modificationTimestamp) },
    ])
}
