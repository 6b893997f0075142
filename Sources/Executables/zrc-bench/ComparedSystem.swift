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

    /// TigerVNC's Xvnc at 1920x1080x24 on a display it picks itself (`-displayfd`, as the
    /// benchmark's Xvfb), returned once an X client can connect (through its socket in
    /// /tmp/.X11-unix, which every namespace sees).
    private static func startXvnc(in lab: NetworkLab, port: String) async throws -> (display: String, server: BenchChild) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvnc") else {
            throw ValidationError("Xvnc is not installed: run Tools/install-deps.sh (package tigervnc-standalone-server)")
        }
        let started = try BenchDisplay.startServer("Xvnc", executable: "/usr/sbin/ip", arguments: lab.inHost([
            "Xvnc", "-displayfd", "1", "-geometry", "1920x1080", "-depth", "24", "-SecurityTypes", "None", "-rfbport", port,
            "-nolisten", "tcp", "-noreset",
        ]))
        return (started.name, started.server)
    }
}
