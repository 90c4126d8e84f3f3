import CollabWire

extension CollabEnvironment {
    /// Records a mail the vendor's server would send (an email invitation, a random password). No mail
    /// leaves the mock: the journal gets an entry of method `EMAIL` for `path`, with `to=ADDRESS` as
    /// its query and status 250 (what a mail server answers when it accepts a message). Nothing secret
    /// goes in it: no link token, no password.
    func journalMail(about path: String, to address: String, accountId: String?, userId: String?) {
        journal.record(
            JournalEntry(
                id: 0, timestamp: clock.now(), method: "EMAIL", path: path, query: "to=\(address)", status: 250, durationMicros: 0,
                accountId: accountId, userId: userId
            )
        )
    }
}
