import ZRCFrames
import ZRCProtocol

/// Encoding once for several viewers (see `SharedUpdates`): a session in step with others takes
/// the update one of them made, or waits for the one making it, or makes it for all.
extension ScreenStreamer {
    /// The newest update another session made from this stream's state, taken without capturing
    /// (its capture's damage is then no longer owed to this viewer): a viewer in step with
    /// another follows it at the cost of sealing and sending. Only at full resolution — a scaled
    /// picture is kept up to date from the captures' damage, so those sessions capture, and
    /// share updates made from the same capture (`sharedUpdate`).
    private func followedUpdate(_ lead: SharedUpdates.Lead, isolation: isolated (any Actor)? = #isolation) async -> FrameUpdate? {
        guard let updates,
              let (step, generation) = updates.shared.newestStep(from: lead.state, setting: lead.setting,
                                                                 maximumPixels: stream.configuration.maximumUpdatePixels, notBefore: lookedAt,
                                                                 streamPosition: encoder.lossless?.position),
              let update = take(step)
        else { return nil }
        updates.moved(to: step.name, setting: lead.setting)
        lookedAt = generation
        await sharing.source.skip(for: viewer, through: generation)
        return update
    }

    /// How the next update comes about for a session that may share (`followOrLead`).
    enum SharedStart {
        /// Taken from another session in the same state: send it as it is.
        case followed(FrameUpdate)
        /// This session computes it for all in its state; `SharedUpdates.finish` once it has.
        case leading(SharedUpdates.Lead)
        /// Computed by this session alone (not sharing, or the one computing it took too long).
        case alone
    }

    /// In step with other sessions: take the update one of them made from this state, or wait for
    /// the one making it and take that, or make it for all.
    func followOrLead(isolation: isolated (any Actor)? = #isolation) async -> SharedStart {
        guard let updates, let candidate = sharingLead() else { return .alone }
        if let followed = await followedUpdate(candidate) { return .followed(followed) }
        if updates.shared.claim(candidate) { return .leading(candidate) }
        await updates.shared.waitForLead(candidate, timeout: Self.leadWait)
        return await followedUpdate(candidate).map { .followed($0) } ?? .alone
    }

    /// How long a session waits for another computing the update it will take (about 3 ms at
    /// 1080p): past this, it computes its own.
    static let leadWait: Duration = .milliseconds(100)

    /// The state and settings of the next update, when it can be shared by following: updates
    /// are shared, the stream's state is named, and the picture is the full screen.
    private func sharingLead() -> SharedUpdates.Lead? {
        guard let updates, updates.shared.isShared, scaler == nil, let stateName,
              !pictureRequestPending
        else { return nil }
        var configuration = stream.configuration
        if encoder.lossless == nil { configuration.encodings.insert(.losslessFrames) }
        return SharedUpdates.Lead(state: stateName, setting: SharedUpdates.Setting(configuration))
    }

    /// Takes `step` (made by another session from this stream's state) as this stream's next
    /// update: the picture's state, its name and, with chunks of a shared stream, where the
    /// controller's lossless stream is after them. Nil when it cannot be taken.
    private func take(_ step: SharedUpdates.Step) -> FrameUpdate? {
        guard step.canBeTaken(at: encoder.lossless?.position) else { return nil }
        var made = step.update
        let ownChunks = step.sendsOwnChunks(at: encoder.lossless?.position)
        if ownChunks, let payloads = step.payloads, let chunks = step.chunks {
            // The update's chunks continue another stream: its payloads as chunks of this one.
            guard let contents = try? encoder.lossless!.recompress(payloads, update: chunks.to) else { return nil }
            var next = contents.makeIterator()
            for index in made.rects.indices {
                switch made.rects[index].content {
                case .lossless, .losslessRestart: made.rects[index].content = next.next() ?? made.rects[index].content
                default: break
                }
            }
        }
        guard let update = stream.adopt(made, state: step.state, streamAgreed: step.chunks != nil) else { return nil }
        stateName = step.name
        if encoder.lossless != nil {
            if !ownChunks { encoder.lossless!.take(step.chunks) }
            updates?.streamMoved(to: encoder.lossless!.position)
        }
        return update
    }

    /// Before this session computes an update: when the sessions in its state have their shared
    /// lossless streams in too many places, its first chunk restarts the stream, so all of them
    /// take the same chunks (and go on in one stream from there).
    func prepareLosslessStream() {
        guard encoder.lossless != nil else { return }
        encoder.lossless!.run = nil
        encoder.lossless!.payloads = []
        encoder.lossless!.restartWanted = updates.map {
            $0.shared.isShared && $0.streamsInState > SharedUpdates.maximumStreamsPerState
        } ?? false
    }

    /// Whether this session's updates are made so that others can take them: with a shared
    /// stream always, with lossless frames while others watch.
    private var computesShareably: Bool {
        encoder.lossless != nil || stream.configuration.encodings.contains(.losslessFrames)
    }

    /// The update another session in this stream's state made from the same capture with the same
    /// settings, taken as this stream's next frame; nil when there is none (then this session
    /// computes it, and keeps it for the others: `shareComputed`). While two or more sessions
    /// watch, lossless rects go through a stream shared with the sessions in the same state
    /// (`SharedLosslessStream`) to controllers that take one, so they cost what they cost one
    /// viewer; to older controllers as frames of their own, so that updates can be shared at all.
    /// A frame cannot refer to what was sent before, so it costs more bytes than a chunk of a
    /// stream (the pipeline's sideways scroll: 3.6 KB instead of 0.3 KB): the price of encoding
    /// once for such controllers, paid only while several sessions watch.
    func sharedUpdate(picture: (pixels: PixelBuffer, hints: [PixelRect]?), name: SharedEncodings.Picture) throws -> FrameUpdate? {
        sharingKey = nil
        guard let updates, updates.shared.isShared else {
            stream.configuration.encodings.remove(.losslessFrames)
            return nil
        }
        if encoder.lossless == nil { stream.configuration.encodings.insert(.losslessFrames) }
        guard name.generation != 0, let stateName else { return nil }
        let key = SharedUpdates.Key(state: stateName, picture: name, setting: SharedUpdates.Setting(stream.configuration))
        sharingKey = key
        guard let step = updates.shared.step(for: key, maximumPixels: stream.configuration.maximumUpdatePixels,
                                             streamPosition: encoder.lossless?.position),
              let update = take(step)
        else { return nil }
        updates.moved(to: step.name, setting: key.setting)
        return update
    }

    /// Names the state this session's stream is in after computing `update` (or nothing), and
    /// keeps the update for other sessions that were in the same state.
    /// `unchanged`: nothing was sent and the state is as it was (the capture showed nothing new):
    /// it keeps its name, so a session that looked at a later capture stays in step with the
    /// others.
    func shareComputed(_ update: FrameUpdate?, picture: SharedEncodings.Picture, unchanged: Bool) {
        guard let updates else { return }
        if let route = encoder.lossless, route.run != nil { updates.streamMoved(to: route.position) }
        if unchanged, stateName != nil, computesShareably { return }
        guard picture.generation != 0, computesShareably else {
            stateName = nil
            updates.moved(to: nil, setting: SharedUpdates.Setting(stream.configuration))
            return
        }
        // Settled: named by what it holds, so sessions that got there separately meet. Else a
        // new name (what was computed may have changed the state even without an update).
        let name = stream.settledIdentity(capture: picture) ?? updates.shared.freshName()
        if let update, let key = sharingKey {
            updates.record(SharedUpdates.Step(update: update, state: stream.pictureState, name: name, chunks: encoder.lossless?.run,
                                               payloads: encoder.lossless?.payloads ?? []),
                           for: key)
        }
        stateName = name
        updates.moved(to: name, setting: SharedUpdates.Setting(stream.configuration))
    }
}
