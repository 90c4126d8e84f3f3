// `import CollabClient` is the one import an app or a test needs: the wire types the client's public
// API takes and returns (`WebNamedArea`, `JournalFilter`, `CallView`, `LiveEvent`, …) live in
// CollabWire, shared with the server, and come along with this module.
@_exported public import CollabWire
