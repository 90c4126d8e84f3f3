// The helpers every server test reaches for (TestServer, the seeds, visitor(…), agent(…), the event
// collectors, the webhook receiver) live in the CollabTestSupport target, which the end-to-end tests
// share; re-exported here so a test file of this target needs no import of its own for them.
@_exported public import CollabTestSupport
