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
        } else if let session = userRuntimeDirectory() {
            // A shell without XDG_RUNTIME_DIR (sudo -u, cron, a bare ssh command) must still find
            // the server a login shell started: that shell's runtime dir is this one.
            runtime = session.appendingPathComponent("zrc")
        } else {
            // No runtime dir at all: a per-user directory directly in /tmp (sticky, so nobody else
            // can move it), refused unless it is ours, private and not a link; another user
            // cannot plant a socket there for our commands to trust.
            runtime = URL(fileURLWithPath: "/tmp/zrc-runtime-\(getuid())")
        }
        return ZRCPaths(
            configDirectory: xdg("XDG_CONFIG_HOME", fallback: ".config").appendingPathComponent("zrc"),
            dataDirectory: xdg("XDG_DATA_HOME", fallback: ".local/share").appendingPathComponent("zrc"),
            runtimeDirectory: runtime)
    }

    /// `/run/user/UID` when it is a real directory of ours (systemd-logind makes it at login).
    static func userRuntimeDirectory() -> URL? {
        let path = "/run/user/\(getuid())"
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else { return nil }
        return URL(fileURLWithPath: path)
    }

    public var hostConfigFile: URL { configDirectory.appendingPathComponent("host.json") }
    public var controllerConfigFile: URL { configDirectory.appendingPathComponent("controller.json") }
    /// The controllers one host identity (`--key-id`) trusts: pairing with one identity must never
    /// authorize a controller on another.
    public func authorizedControllersFile(keyID: String) -> URL {
        dataDirectory.appendingPathComponent(keyID == "default" ? "authorized-controllers.json" : "authorized-controllers-\(keyID).json")
    }
    public var knownHostsFile: URL { dataDirectory.appendingPathComponent("known-hosts.json") }
    /// Opt-in file key store (see `--key-store file`).
    public var fileKeyDirectory: URL { dataDirectory.appendingPathComponent("keys") }
    /// One socket per host identity, so several hosts of one user (`--key-id`) do not collide.
    public func hostControlSocket(keyID: String) -> URL {
        runtimeDirectory.appendingPathComponent(keyID == "default" ? "host.sock" : "host-\(keyID).sock")
    }
}
