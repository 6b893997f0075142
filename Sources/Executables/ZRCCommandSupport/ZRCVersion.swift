/// The release both programs report (`--version`), and the Debian packages' upstream version
/// (`Tools/package.sh` reads it from this line).
public enum ZRCVersion {
    public static let current = "0.1.0"
}
