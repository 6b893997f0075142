import Testing

/// The viewer in real terminals (tmux, xterm, kitty), one test at a time: each starts two X
/// servers, a host, a terminal and the viewer (kitty renders with software OpenGL), and together
/// they would starve the other suites, whose timeouts are real, on a two-core machine.
@Suite(.serialized) enum ViewerInRealTerminals {}
