// swift-tools-version: 6.1
// ZRC: a remote-control host (`zrc-host`) and terminal controller (`zrc-ctl`) for Linux.
// Layers, bottom to top: protocol core (pure Swift) → adapters (one per C library) → kits → executables.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
]
let webServer: [Target.Dependency] = [
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOWebSocket", package: "swift-nio"),
]
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let propertyBased: Target.Dependency = .product(name: "PropertyBased", package: "swift-property-based")
let base64: Target.Dependency = .product(name: "ExtrasBase64", package: "swift-extras-base64")

let package = Package(
    name: "zrc",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "zrc-host", targets: ["zrc-host"]),
        .executable(name: "zrc-ctl", targets: ["zrc-ctl"]),
        .executable(name: "zrc-bench", targets: ["zrc-bench"]),
        .executable(name: "zrc-netdelay", targets: ["zrc-netdelay"]),
        .library(name: "ZRCControllerKit", targets: ["ZRCControllerKit"]),
        // The test kit (ZRCKitTesting below) as a product: the tests, the benchmarks and any package testing against ZRC.
        .library(name: "ZRCKitTesting", targets: ["ZRCKitTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.2.0"),
    ],
    targets: [
        // C libraries, one system-library target each.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CXCB", pkgConfig: "xcb",
            providers: [.apt(["libxcb1-dev", "libxcb-shm0-dev", "libxcb-xtest0-dev", "libxcb-damage0-dev",
                              "libxcb-xfixes0-dev", "libxcb-randr0-dev", "libxcb-render0-dev"])]),
        .systemLibrary(name: "CSecret", pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),
        .systemLibrary(name: "CChafa", pkgConfig: "chafa", providers: [.apt(["libchafa-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // zlib: PNG screenshots' deflate, and the benchmark's VNC client (RFB's Tight and ZRLE are zlib streams).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc's malloc.h (mallopt): part of the C library, nothing to install.
        .systemLibrary(name: "CMalloc"),
        // Reaching hosts behind NATs: libnice (ICE, STUN/TURN, PseudoTCP), Avahi (mDNS on the LAN)
        // and libmosquitto (the rendezvous broker's MQTT). None of the three is linked: they are
        // opened when first used (CReach's reach_libraries.c, CMosquitto), so a process that never
        // reaches anybody does not map them and what they pull in (about 7 MiB resident). These
        // modules give their headers only, with GLib's include paths where the headers need them
        // (GLib itself is linked anyway); pkg-config's `nice` and `avahi-*` would link the libraries.
        .systemLibrary(name: "CNice", pkgConfig: "gio-2.0", providers: [.apt(["libnice-dev"])]),
        .systemLibrary(name: "CAvahi", pkgConfig: "glib-2.0", providers: [.apt(["libavahi-glib-dev"])]),
        .systemLibrary(name: "CAvahiClient"),
        .target(name: "CMosquitto"),
        // The GLib thread libnice and Avahi share, in C: GLib's signals, properties and sources
        // are macros and varargs that Swift cannot call, and PseudoTCP is pumped from there.
        .target(name: "CReach", dependencies: ["CNice", "CAvahi", "CAvahiClient"]),
        // openat2 (RESOLVE_BENEATH) and renameat2 (RENAME_NOREPLACE): kernel calls glibc has no
        // wrapper for, or Swift cannot see; a few lines of C for the file transfer's confinement.
        .target(name: "CFileSystem"),
        .systemLibrary(name: "CNetfilterQueue", pkgConfig: "libnetfilter_queue", providers: [.apt(["libnetfilter-queue-dev"])]),

        // Protocol core: pure Swift, no C, no I/O.
        .target(name: "ZRCProtocol"),
        // Pixel logic (change detection, rectangles, framebuffers): pure Swift, no C, no I/O.
        .target(name: "ZRCFrames", dependencies: ["ZRCProtocol"]),
        // The host's session as a state machine: hello deadline, budgets, roles, and when frames
        // go (pacing, input credit, probing, refinement): pure Swift, "now" as input.
        .target(name: "ZRCHostCore", dependencies: ["ZRCProtocol", "ZRCFrames"]),
        // The seams reaching a host needs from its adapters (ICE transport, LAN discovery, the
        // rendezvous broker) and their errors: protocols and values only, so adapters depend on
        // the core, never on a kit.
        .target(name: "ZRCReach", dependencies: ["ZRCProtocol"]),

        // Adapters: each hides one C library behind Swift types.
        .target(name: "ZRCSodium", dependencies: ["ZRCProtocol", "CSodium"]),
        .target(name: "ZRCKeyStore", dependencies: ["ZRCSystem", "ZRCProtocol", "CSecret", logging]),
        .target(name: "ZRCJPEG", dependencies: ["CTurboJPEG", "ZRCProtocol"]),
        // zstd streams for lossless rectangles: one context per session, each chunk flushed.
        .target(name: "ZRCZstd", dependencies: ["CZstd"]),
        // zlib: deflate for PNG screenshots; inflate streams for the benchmark's RFB client.
        .target(name: "ZRCZlib", dependencies: ["CZlib"]),
        .target(name: "ZRCMemory", dependencies: ["CMalloc"]),
        // POSIX calls: EINTR retried in one place, errors naming the failing call and errno.
        .target(name: "ZRCSystem"),
        // ICE links (libnice + PseudoTCP through CReach) as byte streams for the record layer.
        .target(name: "ZRCIce", dependencies: ["CReach", "ZRCProtocol", "ZRCReach"]),
        // LAN discovery (Avahi through CReach): publishing and browsing `_zrc._tcp`.
        .target(name: "ZRCDiscovery", dependencies: ["CReach", "ZRCProtocol", "ZRCReach"]),
        // The rendezvous broker's MQTT client (libmosquitto).
        .target(name: "ZRCMQTT", dependencies: ["ZRCSystem", "CMosquitto", "ZRCReach", "ZRCProtocol"]),
        .target(name: "ZRCX11", dependencies: ["ZRCSystem", "CXCB", "ZRCProtocol", logging]),
        // libchafa's sixel and symbol output as the viewer's renderers.
        .target(name: "ZRCChafa", dependencies: ["CChafa", "ZRCViewer", "ZRCFrames"]),
        // The controlling terminal (POSIX, no C library of its own): raw mode, size, input and
        // output threads, signals, shared memory for kitty images.
        .target(name: "ZRCTerminal", dependencies: ["ZRCSystem", "ZRCViewer"]),

        // Files transferred: paths confined beneath a root (openat2), atomic parts, BLAKE2b digests.
        .target(name: "ZRCFiles", dependencies: ["ZRCSystem", "ZRCProtocol", "ZRCSodium", "CFileSystem"]),
        // Files users touch: JSON trust stores and config, XDG paths, atomic writes.
        .target(name: "ZRCStorage", dependencies: ["ZRCSystem", "ZRCProtocol", logging]),

        // Kits: wire the protocol core to real I/O.
        .target(name: "ZRCNetworking", dependencies: ["ZRCSystem", "ZRCProtocol", logging] + nio),
        .target(name: "ZRCHostKit", dependencies: ["ZRCProtocol", "ZRCFrames", "ZRCHostCore", "ZRCFiles", "ZRCNetworking", "ZRCReach", "ZRCStorage", logging] + nio),
        .target(name: "ZRCControllerKit", dependencies: ["ZRCProtocol", "ZRCFrames", "ZRCFiles", "ZRCNetworking", "ZRCReach", "ZRCStorage", logging] + nio),
        // The terminal viewer's pure logic: terminal input and replies, viewport mapping, scaling,
        // the kitty graphics protocol, status line, reconnect schedule.
        .target(name: "ZRCViewer", dependencies: ["ZRCProtocol", "ZRCFrames", base64]),
        // `zrc-ctl view`: the viewer loop wiring a controller session to the terminal.
        .target(name: "ZRCViewerKit", dependencies: ["ZRCControllerKit", "ZRCViewer", "ZRCTerminal", "ZRCNetworking", "ZRCProtocol", logging]),
        // The browser viewer's pure logic: the local server's gate (token, cookie, Host, Origin) and
        // the page's messages both ways.
        .target(name: "ZRCWebViewer", dependencies: ["ZRCProtocol", "ZRCFrames"]),
        // The browser viewer's page (HTML, CSS, JavaScript modules in page/), compiled in by EmbedPage.
        .target(name: "ZRCWebPage", exclude: ["page"], plugins: ["EmbedPage"]),
        .executableTarget(name: "zrc-embed", path: "Tools/embed"),
        .plugin(name: "EmbedPage", capability: .buildTool(), dependencies: ["zrc-embed"]),
        // `zrc-ctl view --web`: the session kept as the terminal viewer keeps it, shown in a local
        // page over a loopback HTTP server and WebSocket (SwiftNIO's HTTP/1 and WebSocket).
        .target(name: "ZRCWebViewerKit",
                dependencies: ["ZRCWebViewer", "ZRCWebPage", "ZRCViewerKit", "ZRCViewer", "ZRCControllerKit", "ZRCNetworking", "ZRCProtocol", "ZRCFiles", "ZRCSodium",
                               "ZRCFrames", logging] + nio + webServer),
        // The X11 screen as a host `ScreenSource`/`InputSink`: the kit's seam filled by the X11 adapter.
        .target(name: "ZRCHostX11", dependencies: ["ZRCHostKit", "ZRCX11", "ZRCFrames", "ZRCNetworking", "ZRCProtocol", logging]),

        // Executables: the only place adapters are chosen and wired together (shared wiring in
        // ZRCCommandSupport, used by the executables and their command libraries alone).
        .target(name: "ZRCCommandSupport",
                dependencies: ["ZRCSystem", "ZRCKeyStore", "ZRCSodium", "ZRCStorage", "ZRCProtocol", "ZRCFrames", "ZRCJPEG", "ZRCZstd", "ZRCIce", "ZRCMQTT", "ZRCDiscovery",
                               "ZRCNetworking", "ZRCReach", "ZRCControllerKit", "ZRCHostKit", argumentParser, logging]),
        // The programs' commands (argument parsing, help, validation and what each subcommand does),
        // as libraries so that tests can parse arguments and pin the help without running anything;
        // each executable is one file whose `@main` is its library's root command.
        .target(name: "ZRCHostCommands",
                dependencies: ["ZRCCommandSupport", "ZRCHostKit", "ZRCHostX11", "ZRCX11", "ZRCFiles", "ZRCKeyStore", "ZRCSodium", "ZRCStorage", "ZRCNetworking",
                               "ZRCProtocol", "ZRCMemory", argumentParser, logging]),
        .target(name: "ZRCControllerCommands",
                dependencies: ["ZRCSystem", "ZRCCommandSupport", "ZRCControllerKit", "ZRCFiles", "ZRCMemory", "ZRCKeyStore", "ZRCReach", "ZRCViewerKit", "ZRCViewer", "ZRCWebViewerKit", "ZRCTerminal", "ZRCStorage",
                               "ZRCChafa", "ZRCJPEG", "ZRCZlib", "ZRCFrames", "ZRCNetworking", "ZRCProtocol", "ZRCSodium", argumentParser, logging]),
        .executableTarget(name: "zrc-host", dependencies: ["ZRCHostCommands", argumentParser]),
        .executableTarget(name: "zrc-ctl", dependencies: ["ZRCControllerCommands", argumentParser]),

        // Benchmarks (a command, not timed tests): `swift run -c release zrc-bench`.
        .executableTarget(
            name: "zrc-bench",
            dependencies: ["ZRCSystem", "ZRCFrames", "ZRCCommandSupport", "ZRCX11", "ZRCProtocol", "ZRCHostKit", "ZRCHostX11", "ZRCControllerKit",
                           "ZRCNetworking", "ZRCSodium", "ZRCStorage", "ZRCViewer", "ZRCChafa", "ZRCTerminal", "ZRCKitTesting", "ZRCZlib", "ZRCMemory", "ZRCWebViewerKit", "ZRCWebTesting", "ZRCFiles", argumentParser,
                           logging]),

        // The network laboratory's delay: holds NFQUEUE packets for a fixed time (the kernel has no
        // netem). C, since it is a few lines around libnetfilter_queue.
        .executableTarget(name: "zrc-netdelay", dependencies: ["CNetfilterQueue"], path: "Tools/netdelay"),

        // The test kit, for the tests and `zrc-bench`: a fake screen, a real host on loopback with its
        // controllers (HostHarness), the rendezvous broker and ICE in memory, a hostile host, and
        // hostile peers (connection and session floods).
        .target(name: "ZRCKitTesting",
                dependencies: ["ZRCFiles", "ZRCHostKit", "ZRCControllerKit", "ZRCNetworking", "ZRCReach", "ZRCSodium", "ZRCStorage", "ZRCProtocol", "ZRCFrames",
                               "ZRCTestSupport", logging] + nio),

        // Headless Chromium under Playwright, for the browser viewer's tests and `zrc-bench web`.
        .target(name: "ZRCWebTesting", dependencies: ["ZRCTestSupport"]),

        // Helpers shared by the test targets.
        .target(name: "ZRCTestSupport", dependencies: ["ZRCFrames", logging]),
        // A private Xvfb per test and an X client that records the input it receives.
        .target(name: "ZRCXTestSupport", dependencies: ["CXCB"]),
        .testTarget(name: "ZRCProtocolTests", dependencies: ["ZRCProtocol", "ZRCTestSupport", propertyBased]),
        .testTarget(name: "ZRCFramesTests", dependencies: ["ZRCFrames", "ZRCProtocol", "ZRCTestSupport", propertyBased]),
        .testTarget(name: "ZRCHostCoreTests", dependencies: ["ZRCHostCore", "ZRCFrames", "ZRCProtocol", "ZRCTestSupport", propertyBased]),
        .testTarget(name: "ZRCSodiumTests", dependencies: ["ZRCSodium", "ZRCProtocol", propertyBased],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "ZRCKeyStoreTests", dependencies: ["ZRCKeyStore", "ZRCProtocol", "ZRCTestSupport"]),
        .testTarget(name: "ZRCStorageTests", dependencies: ["ZRCStorage", "ZRCProtocol", "ZRCTestSupport", propertyBased]),
        // CXCB: the X11 tests run an X client of their own that records what ZRC injects and draws.
        // CReach, ZRCIce, ZRCMQTT: the ICE adapter's C stream pump and agent lifetime; the broker client against Mosquitto.
        .testTarget(name: "ZRCAdapterTests", dependencies: ["ZRCJPEG", "ZRCZstd", "ZRCZlib", "ZRCFrames", "ZRCX11", "ZRCChafa", "CXCB", "ZRCTestSupport", "ZRCXTestSupport",
                                                          "ZRCIce", "CReach", "ZRCMQTT", "ZRCReach", "ZRCNetworking", "ZRCProtocol", logging]),
        .testTarget(name: "ZRCKitTests",
                    dependencies: ["ZRCHostKit", "ZRCControllerKit", "ZRCNetworking", "ZRCReach", "ZRCSodium", "ZRCStorage", "ZRCProtocol", "ZRCFrames",
                                   "ZRCFiles", "ZRCHostX11", "ZRCX11", "ZRCCommandSupport", "ZRCTestSupport", "ZRCXTestSupport", "ZRCKitTesting", logging,
                                   propertyBased] + nio),
        .testTarget(name: "ZRCViewerTests", dependencies: ["ZRCViewer", "ZRCViewerKit", "ZRCControllerKit", "ZRCNetworking", "ZRCFrames", "ZRCProtocol", "ZRCTestSupport", propertyBased]),
        .testTarget(name: "ZRCWebViewerTests", dependencies: ["ZRCWebViewer", "ZRCWebPage", "ZRCWebViewerKit", "ZRCWebTesting", "ZRCViewer", "ZRCProtocol",
                                                             "ZRCFrames", "ZRCTestSupport", logging, propertyBased]),
        .testTarget(name: "ZRCEndToEndTests", dependencies: ["ZRCTestSupport", "ZRCXTestSupport", "ZRCWebTesting"]),
        // Parse-only tests of both programs' arguments (nothing runs: no network, keyring or X) and
        // their help pinned in Fixtures/ (ZRC_UPDATE_HELP=1 rewrites it).
        .testTarget(name: "ZRCCommandTests",
                    dependencies: ["ZRCHostCommands", "ZRCControllerCommands", "ZRCHostKit", "ZRCViewer", "ZRCStorage", argumentParser, logging],
                    resources: [.copy("Fixtures")]),
    ]
)

// Folders by layer: the pure core, the C modules, the adapters (one C library or OS facility
// each), the kits (the core wired to real I/O), the test kits, the executables; tests likewise.
let layers: [String: [String]] = [
    "Core": ["ZRCProtocol", "ZRCFrames", "ZRCHostCore", "ZRCReach", "ZRCViewer", "ZRCWebViewer",
             "ZRCProtocolTests", "ZRCFramesTests", "ZRCHostCoreTests"],
    "C": ["CAvahi", "CAvahiClient", "CChafa", "CFileSystem", "CMalloc", "CMosquitto", "CNetfilterQueue", "CNice", "CReach", "CSecret", "CSodium",
          "CTurboJPEG", "CXCB", "CZlib", "CZstd"],
    "Adapters": ["ZRCSystem", "ZRCSodium", "ZRCKeyStore", "ZRCJPEG", "ZRCZstd", "ZRCZlib", "ZRCMemory", "ZRCIce", "ZRCDiscovery", "ZRCMQTT", "ZRCX11",
                 "ZRCChafa", "ZRCTerminal", "ZRCStorage", "ZRCFiles",
                 "ZRCSodiumTests", "ZRCKeyStoreTests", "ZRCStorageTests", "ZRCAdapterTests"],
    "Kits": ["ZRCNetworking", "ZRCHostKit", "ZRCControllerKit", "ZRCViewerKit", "ZRCWebViewerKit", "ZRCWebPage", "ZRCHostX11",
             "ZRCKitTests", "ZRCViewerTests", "ZRCWebViewerTests"],
    "Testing": ["ZRCKitTesting", "ZRCWebTesting", "ZRCTestSupport"],
    "Executables": ["zrc-host", "zrc-ctl", "zrc-bench", "ZRCCommandSupport", "ZRCHostCommands", "ZRCControllerCommands",
                    "ZRCCommandTests"],
    "EndToEnd": ["ZRCEndToEndTests"],
    "Support": ["ZRCXTestSupport"],
]
let isTestFolder: Set<String> = ["EndToEnd", "Support"]

// The programs are linked with lld, their relocations packed and none of their symbols exported:
// - A position-independent program's relative relocations (about 100,000 here, one per pointer in
//   its data) take 2.3 MB as RELA entries, all of which the loader reads at every start and which
//   stay resident; packed (DT_RELR, glibc 2.36; gold cannot) they take 19 KB. Measured: the host
//   of `zrc-bench flood` holds 2.7 MiB less with a 1080p viewer, 2.9 MiB less idle.
// - --static-swift-stdlib links with -export-dynamic, which put 17,600 of a program's own symbols
//   in its dynamic symbol table; every symbol lookup of every library at start goes through it.
//   Measured: 1.5 MiB less resident. Nothing looks a symbol up in the programs (no plugins, no
//   dlsym on them), and the backtracer reads symbols from the file.
let leanExecutable: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"]),
]

// One place for what every Swift target shares (C modules and the C tool take none of it).
for target in package.targets {
    if target.path == nil, let layer = layers.first(where: { $0.value.contains(target.name) })?.key {
        let root = target.type == .test || isTestFolder.contains(layer) ? "Tests" : "Sources"
        target.path = "\(root)/\(layer)/\(target.name)"
    }
    let isC = target.type == .system || ["CReach", "CMosquitto", "CFileSystem", "zrc-netdelay"].contains(target.name)
    if !isC && target.type != .plugin { target.swiftSettings = (target.swiftSettings ?? []) + strict }
    if ["zrc-host", "zrc-ctl", "zrc-bench"].contains(target.name) { target.linkerSettings = (target.linkerSettings ?? []) + leanExecutable }
}
