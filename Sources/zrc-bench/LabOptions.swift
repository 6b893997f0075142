import ArgumentParser

/// The network laboratory's options, shared by `links` and `compare`.
struct LabOptions: ParsableArguments {
    @Option(parsing: .upToNextOption, help: "Profiles to run: lan, wifi, dsl, lte, far.")
    var profiles: [String] = NetworkLab.Profile.all.map(\.name)

    @Option(help: "Clicks measured per phase.")
    var trials = 30

    @Option(help: "Pause between clicks in milliseconds.")
    var pause = 250

    @Option(help: "Seconds watched per motion (and, in `compare`, per workload).")
    var seconds = 5

    func validate() throws {
        for name in profiles where NetworkLab.Profile.named(name) == nil {
            throw ValidationError("unknown profile \(name): lan, wifi, dsl, lte or far")
        }
        guard (5...1000).contains(trials) else { throw ValidationError("--trials must be 5…1000") }
        guard (50...10_000).contains(pause) else { throw ValidationError("--pause must be 50…10000") }
        guard (1...120).contains(seconds) else { throw ValidationError("--seconds must be 1…120") }
    }

    /// The chosen profiles, in the order given (validated above).
    var chosen: [NetworkLab.Profile] { profiles.compactMap(NetworkLab.Profile.named) }
}
