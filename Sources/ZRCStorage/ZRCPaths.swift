public import Foundation

/// Where ZRC keeps its files, following the XDG base-directory specification.
///
/// Config (hand-editable settings) goes under `$XDG_CONFIG_HOME/zrc`, trust stores (written by
/// ZRC as pairing happens) under `$XDG_DATA_HOME/zrc`, and the live server's control socket under
/// `$XDG_RUNTIME_DIR/zrc`.
public struct ZRCPaths: Sendable, Equatable {
    public let configDirectory: URL
    public let dataDirectory: URL
    public let runtimeDirectory: URL

    public init(configDirectory: URL, dataDirectory: URL, runtimeDirectory: URL) {
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
        self.runtimeDirectory = runtimeDirectory
    }

    /// Resolves the directories from an environment (normally `ProcessInfo.processInfo.environment`).
    public static func fromEnvironment(_ environment: [String: String]) -> ZRCPaths {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func xdg(_ name: String, fallback: String) -> URL {
            // The spec says relative paths are invalid and must be ignored.
            if let value = environment[name], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
            return URL(fileURLWithPath: home).appendingPathComponent(fallback)
        }
        let runtime: URL
        if let value = environment["XDG_RUNTIME_DIR"], value.hasPrefix("/") {
            runtime = URL(fileURLWithPath: value).appendingPathComponent("zrc")
        } else {
            // No runtime dir (e.g. a cron job): a per-user directory directly in /tmp (sticky, so
            // nobody else can move it), refused by `ensurePrivateDirectory` unless it is ours and
            // private; another user cannot plant a socket there for our commands to trust.
            runtime = URL(fileURLWithPath: "/tmp/zrc-runtime-\(getuid())")
        }
        return ZRCPaths(
            configDirectory: xdg("XDG_CONFIG_HOME", fallback: ".config").appendingPathComponent("zrc"),
            dataDirectory: xdg("XDG_DATA_HOME", fallback: ".local/share").appendingPathComponent("zrc"),
            runtimeDirectory: runtime)
    }

    public var hostConfigFile: URL { configDirectory.appendingPathComponent("host.json") }
    public var controllerConfigFile: URL { configDirectory.appendingPathComponent("controller.json") }
    public var authorizedControllersFile: URL { dataDirectory.appendingPathComponent("authorized-controllers.json") }
    public var knownHostsFile: URL { dataDirectory.appendingPathComponent("known-hosts.json") }
    /// Opt-in file key store (see `--key-store file`).
    public var fileKeyDirectory: URL { dataDirectory.appendingPathComponent("keys") }
    /// One socket per host identity, so several hosts of one user (`--key-id`) do not collide.
    public func hostControlSocket(keyID: String) -> URL {
        runtimeDirectory.appendingPathComponent(keyID == "default" ? "host.sock" : "host-\(keyID).sock")
    }
}
