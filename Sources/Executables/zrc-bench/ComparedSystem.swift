import ArgumentParser
import Foundation
import ZRCX11

/// A remote-desktop system the laboratory measures: ZRC, or a VNC server from Debian with the
/// encodings the benchmark's RFB client asks it for.
enum ComparedSystem: String, CaseIterable, ExpressibleByArgument, Sendable {
    case zrc
    /// TigerVNC's X server (its own screen) with ZRLE: lossless.
    case xvncZRLE = "xvnc-zrle"
    /// TigerVNC's X server with Tight, JPEG quality level 6 (about q80).
    case xvncTight = "xvnc-tight"
    /// TigerVNC's scraping server on the shared Xvfb, Tight.
    case x0vncTight = "x0vnc-tight"
    /// x11vnc on the shared Xvfb, Tight.
    case x11vncTight = "x11vnc-tight"

    static let defaults: [ComparedSystem] = [.zrc, .xvncZRLE, .xvncTight, .x11vncTight]

    var title: String {
        switch self {
        case .zrc: "ZRC"
        case .xvncZRLE: "TigerVNC Xvnc, ZRLE"
        case .xvncTight: "TigerVNC Xvnc, Tight"
        case .x0vncTight: "TigerVNC x0vncserver, Tight"
        case .x11vncTight: "x11vnc, Tight"
        }
    }

    /// What the RFB client asks for; nil for ZRC.
    var encodings: RFBViewer.Encodings? {
        switch self {
        case .zrc: nil
        case .xvncZRLE: .zrle
        case .xvncTight, .x0vncTight, .x11vncTight: .tight
        }
    }

    static let vncPort = 5900

    /// Starts the server in the laboratory's host namespace; the X display it shares (Xvnc brings
    /// its own) and the server process. `shared` is the benchmark's Xvfb.
    func startServer(in lab: NetworkLab, shared: String, directory: URL) async throws -> (display: String, server: BenchChild) {
        let port = "\(Self.vncPort)"
        switch self {
        case .zrc:
            let host = try BenchChild("the ZRC host", executable: "/usr/sbin/ip", arguments: lab.inHost([
                BenchChild.selfExecutable, "flood-host", "--display", shared, "--directory", directory.path, "--listen", NetworkLab.hostAddress,
            ]))
            guard try await host.nextLine(timeout: .seconds(20)).hasPrefix("port ") else {
                host.stop()
                throw ValidationError("the ZRC host did not start")
            }
            return (shared, host)
        case .xvncZRLE, .xvncTight:
            return try await Self.startXvnc(in: lab, port: port)
        case .x0vncTight:
            // X0tigervnc itself: Debian's `x0vncserver` is a wrapper that daemonizes it.
            return (shared, try BenchChild("x0vncserver", executable: "/usr/sbin/ip", arguments: lab.inHost([
                "X0tigervnc", "-display", shared, "-SecurityTypes", "None", "-rfbport", port,
            ]), quiet: true))
        case .x11vncTight:
            return (shared, try BenchChild("x11vnc", executable: "/usr/sbin/ip", arguments: lab.inHost([
                "x11vnc", "-display", shared, "-rfbport", port, "-nopw", "-forever", "-shared", "-quiet", "-noipv6",
            ]), quiet: true))
        }
    }

    /// Whether a live X server holds display `number`: its lock file names a running process. A
    /// server killed outright leaves its lock and socket behind (99 of the 100 numbers were taken
    /// by such leftovers once), and Xvnc replaces a stale lock itself.
    private static func displayIsHeld(_ number: Int) -> Bool {
        guard let text = try? String(contentsOfFile: "/tmp/.X\(number)-lock", encoding: .utf8) else { return false }
        guard let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return true }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// TigerVNC's Xvnc at 1920x1080x24 on the first free display from :500, waited for until an
    /// X client can connect (through its socket in /tmp/.X11-unix, which every namespace sees).
    private static func startXvnc(in lab: NetworkLab, port: String) async throws -> (display: String, server: BenchChild) {
        for number in 500..<600 where !Self.displayIsHeld(number) {
            let name = ":\(number)"
            let server = try BenchChild("Xvnc \(name)", executable: "/usr/sbin/ip", arguments: lab.inHost([
                "Xvnc", name, "-geometry", "1920x1080", "-depth", "24", "-SecurityTypes", "None", "-rfbport", port,
                "-nolisten", "tcp", "-noreset",
            ]), quiet: true)
            for _ in 0..<200 {
                if (try? X11Connection(displayName: name)) != nil { return (name, server) }
                guard server.process.isRunning else { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            server.stop()
        }
        throw ValidationError("could not start Xvnc on any display :500–:599 (is tigervnc-standalone-server installed?)")
    }
}
