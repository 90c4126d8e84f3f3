import ArgumentParser

/// The server a client command (`load`, `visitor`) talks to, and the API key its visitors start with.
struct ServerTargetArguments: ParsableArguments {
    @Option(help: "The server's root URL.")
    var url: String = "http://127.0.0.1:8080"

    @Option(help: "The API key visitors start with.")
    var apiKey: String = "demo-api-key"
}
