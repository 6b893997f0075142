public import Foundation

/// The checkout the tests were built from, for tests that run its scripts or read its schemas.
public enum Checkout {
    /// The nearest folder above this file holding Package.swift (test folders are nested by layer,
    /// so no fixed depth).
    public static let root: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/", !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder
    }()
}
