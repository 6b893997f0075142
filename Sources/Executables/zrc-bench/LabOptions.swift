import ArgumentParser
import Foundation

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

    @Option(help: "The full-screen motion: scroll (the picture scrolls sideways) or video (every pixel changes, nothing moves as a whole).")
    var motion: MotionKind = .scroll

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

/// What `links` and `compare` measure in: the benchmark's own 1920x1080 Xvfb (shared by ZRC and
/// the scraping VNC servers), the delay helper built beside zrc-bench, and every child killed if
/// the benchmark is interrupted. `stop` ends the Xvfb.
final class LabBench {
    let options: LabOptions
    let display: String
    private let xvfb: BenchChild
    private let delayHelper: String
    private let signals: [any DispatchSourceSignal]

    init(options: LabOptions) throws {
        self.options = options
        signals = BenchChild.killChildrenOnSignal()
        delayHelper = try BenchChild.companion("zrc-netdelay")
        (display, xvfb) = try BenchDisplay.start(width: 1920, height: 1080)
    }

    /// A laboratory for `profile`, its delay helpers ready; the caller takes it `down`.
    func lab(_ profile: NetworkLab.Profile) async throws -> NetworkLab {
        let lab = try NetworkLab(profile: profile, delayHelper: delayHelper)
        do {
            try await lab.ready()
        } catch {
            lab.down()
            throw error
        }
        return lab
    }

    /// `system` measured in `lab` with the options' clicks and seconds, then `workloads`.
    func measure(_ system: ComparedSystem, in lab: NetworkLab, workloads: [Workload]) async throws -> LabRun.Figures {
        try await LabRun(system: system, lab: lab, sharedDisplay: display, trials: options.trials, pause: options.pause,
                         seconds: options.seconds, motion: options.motion, workloads: workloads).measure()
    }

    func stop() {
        xvfb.stop()
        withExtendedLifetime(signals) {}
    }
}
