import Foundation
import Logging
import ZRCStorage
import ZRCProtocol

/// The Settings screen: `controller.json`'s fields, checked by the very decoder that reads the
/// file at every start (so an invalid value is refused with its field named, and nothing the page
/// sends can make the file unreadable), written atomically (mode 0600, under the file's lock).
extension ControllerApp {
    /// The fields the page edits (`keyStore` stays a file edit: it moves the identity).
    static let editableFields: Set<String> = ["controllerName", "rendezvousUrls", "relayUrls", "stunUrls", "transportPreference", "clipboard",
                                              "clipboardFromHost", "renderer", "pasteMode"]

    struct Settings: Encodable {
        let settings: ControllerConfig
        /// The default controller name (user@machine), shown when `controllerName` is not set.
        let defaultControllerName: String
        let file: String
        let choices: [String: [String]]
    }

    /// The settings as the file has them (`saved`: as just written).
    func settings(saved: ControllerConfig? = nil) throws(AppAPI.Failure) -> Settings {
        let file = context.paths.controllerConfigFile
        var config = saved ?? ControllerConfig()
        if saved == nil {
            do {
                config = try DocumentFile.load(ControllerConfig.self, from: file) ?? config
            } catch {
                throw AppAPI.Failure(500, error.description)
            }
        }
        var unnamed = context
        unnamed.config.controllerName = nil
        return Settings(settings: config, defaultControllerName: unnamed.controllerName, file: file.path, choices: [
            "transportPreference": TransportPreference.allCases.map(\.rawValue),
            "renderer": RendererChoice.allCases.map(\.rawValue),
            "pasteMode": PasteModeChoice.allCases.map(\.rawValue),
        ])
    }

    /// `{"settings": {FIELD: VALUE, …}}`: the fields given replace the file's (an empty
    /// `controllerName` removes it); the rest of the file stays.
    func saveSettings(_ body: [UInt8]) throws(AppAPI.Failure) -> Settings {
        guard let request = try? JSONSerialization.jsonObject(with: Data(body.isEmpty ? Array("{}".utf8) : body)) as? [String: Any],
              let changes = request["settings"] as? [String: Any] else {
            throw AppAPI.Failure(400, "expected {\"settings\": {FIELD: VALUE, …}}", field: "settings")
        }
        if let unknown = changes.keys.sorted().first(where: { !Self.editableFields.contains($0) }) {
            throw AppAPI.Failure(400, "`\(unknown)` is not a setting this page changes", field: unknown)
        }
        let file = context.paths.controllerConfigFile
        var merged: [String: Any]
        do {
            let current = try DocumentFile.load(ControllerConfig.self, from: file) ?? ControllerConfig()
            merged = try JSONSerialization.jsonObject(with: Data(JSONDocument.encode(current, path: file.path))) as? [String: Any] ?? [:]
        } catch {
            throw AppAPI.Failure(500, "\(error)")
        }
        for (key, value) in changes {
            if key == "controllerName", (value as? String)?.isEmpty == true || value is NSNull {
                merged[key] = nil
            } else {
                merged[key] = value
            }
        }
        let config: ControllerConfig
        do {
            let bytes = try JSONSerialization.data(withJSONObject: merged, options: [.sortedKeys])
            config = try JSONDocument.decode(ControllerConfig.self, from: Array(bytes), path: file.path)
        } catch let error as StorageError {
            throw AppAPI.Failure(400, error.reason, field: error.field)
        } catch {
            throw AppAPI.Failure(400, "the settings are not JSON values: \(error)")
        }
        do {
            try DocumentFile.update(ControllerConfig.self, at: file, empty: ControllerConfig()) { (stored: inout ControllerConfig) throws(StorageError) in
                stored = config
            }
        } catch {
            throw AppAPI.Failure(500, error.description)
        }
        logger.notice("settings saved to \(file.path)")
        settingsChanged(config)
        return try settings(saved: config)
    }
}
