// An ICE link: a libnice agent with one UDP component, and a PseudoTCP stream over the selected
// pair, bridged to one end of a socketpair whose other end the caller reads and writes like a
// TCP connection. ZRC drives PseudoTCP itself (instead of nice_agent_new_reliable) so the window
// can be sized per path: reliable agents use fixed 60/90 KiB buffers.
//
// Everything below the public functions runs on the shared GLib thread (glib_loop.c).
#include "zrc_reach.h"
#include "glib_loop.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <nice/agent.h>
#include <nice/pseudotcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

// Last: libnice's functions through the table zrc_ice_new fills on first use.
#include "reach_libraries.h"

// What moves between the socket and PseudoTCP in one step.
#define CHUNK 65536
// The largest UDP payload PseudoTCP sends.
#define SEGMENT_MTU 1200

struct zrc_ice {
    zrc_ice_options options;
    char *stun_host;
    char *relay_hosts[ZRC_ICE_MAX_RELAYS], *relay_users[ZRC_ICE_MAX_RELAYS], *relay_passwords[ZRC_ICE_MAX_RELAYS];
    zrc_ice_callback callback;  // NULL once freeing: nothing reaches the caller after zrc_ice_free
    void *context;

    NiceAgent *agent;
    guint stream_id;
    gboolean gathered;

    PseudoTcpSocket *tcp;
    gboolean tcp_started;  // the window is fixed and (controlling side) connect was called
    gboolean tcp_closed;
    GSource *clock_source;
    uint32_t window;

    int bridge_fd;   // our end of the socketpair
    int caller_fd;   // the caller's end until taken
    GSource *read_watch;   // bridge_fd readable: the caller sent bytes
    GSource *write_watch;  // bridge_fd writable: room for what PseudoTCP delivered
    char pending[CHUNK];   // received from PseudoTCP, not yet written to the socket
    size_t pending_offset, pending_length;
    char outgoing[CHUNK];  // read from the socket, not yet taken by PseudoTCP
    size_t outgoing_offset, outgoing_length;
    gboolean caller_closed;
    gboolean remote_finished;
    // Freed by the caller while the stream was still open: kept until the FIN exchange ends (or
    // LINGER_MS pass), so the peer learns of the close at once instead of by its dead-peer timeout.
    gboolean lingering;
    GSource *linger_source;
    // Told (on the GLib thread) once the link is gone, lingering included.
    void (*done)(void *context);
    void *done_context;
};

// How long a closed stream may take to tell the peer.
#define LINGER_MS 3000

static void finish_free(zrc_ice *ice);
static gboolean linger_over(gpointer data);
static void end_linger_soon(zrc_ice *ice);

static void emit(zrc_ice *ice, int event, const char *detail) {
    if (ice->callback) ice->callback(ice->context, event, detail);
}

static void copy_text(char *destination, size_t size, const char *text) {
    if (size == 0) return;
    snprintf(destination, size, "%s", text ? text : "");
}

// ---- PseudoTCP clock ----

static void schedule_clock(zrc_ice *ice);

static gboolean clock_fired(gpointer data) {
    zrc_ice *ice = data;
    g_source_unref(ice->clock_source);
    ice->clock_source = NULL;
    if (ice->tcp) {
        pseudo_tcp_socket_notify_clock(ice->tcp);
        schedule_clock(ice);
    }
    return G_SOURCE_REMOVE;
}

// PseudoTCP has no timers of its own: it says when it next needs the clock, and is told.
static void schedule_clock(zrc_ice *ice) {
    if (!ice->tcp) return;
    guint64 deadline = 0;
    if (!pseudo_tcp_socket_get_next_clock(ice->tcp, &deadline)) return;
    if (ice->clock_source) {
        g_source_destroy(ice->clock_source);
        g_source_unref(ice->clock_source);
    }
    guint64 now = g_get_monotonic_time() / 1000;
    guint delay = deadline > now ? (guint)MIN(deadline - now, 60000) : 0;
    ice->clock_source = g_timeout_source_new(delay);
    g_source_set_callback(ice->clock_source, clock_fired, ice, NULL);
    g_source_attach(ice->clock_source, zrc_loop_context());
}

// ---- the bridge between the socket and PseudoTCP ----

static gboolean bridge_readable(gint fd, GIOCondition condition, gpointer data);
static gboolean bridge_writable(gint fd, GIOCondition condition, gpointer data);

static void watch_reads(zrc_ice *ice, gboolean on) {
    if (on && !ice->read_watch && ice->bridge_fd >= 0 && !ice->caller_closed) {
        ice->read_watch = g_unix_fd_source_new(ice->bridge_fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
        g_source_set_callback(ice->read_watch, (GSourceFunc)(void (*)(void))bridge_readable, ice, NULL);
        g_source_attach(ice->read_watch, zrc_loop_context());
    } else if (!on && ice->read_watch) {
        g_source_destroy(ice->read_watch);
        g_source_unref(ice->read_watch);
        ice->read_watch = NULL;
    }
}

static void watch_writes(zrc_ice *ice, gboolean on) {
    if (on && !ice->write_watch && ice->bridge_fd >= 0) {
        ice->write_watch = g_unix_fd_source_new(ice->bridge_fd, G_IO_OUT | G_IO_HUP | G_IO_ERR);
        g_source_set_callback(ice->write_watch, (GSourceFunc)(void (*)(void))bridge_writable, ice, NULL);
        g_source_attach(ice->write_watch, zrc_loop_context());
    } else if (!on && ice->write_watch) {
        g_source_destroy(ice->write_watch);
        g_source_unref(ice->write_watch);
        ice->write_watch = NULL;
    }
}

int zrc_flush_pending(int fd, const char *buffer, size_t *offset, size_t *length) {
    while (*length > 0) {
        ssize_t written = send(fd, buffer + *offset, *length, MSG_NOSIGNAL);
        if (written < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return FALSE;
            // The caller closed its end: nothing more to deliver. Both go back to 0, or the next
            // chunk would be read from where this one stopped.
            *length = 0;
            *offset = 0;
            return TRUE;
        }
        *offset += (size_t)written;
        *length -= (size_t)written;
    }
    *offset = 0;
    return TRUE;
}

// Writes what PseudoTCP delivered to the caller's socket. FALSE while the socket is full.
static gboolean flush_pending(zrc_ice *ice) {
    return zrc_flush_pending(ice->bridge_fd, ice->pending, &ice->pending_offset, &ice->pending_length);
}

// Moves received bytes from PseudoTCP to the socket until either runs dry. Leaving bytes inside
// PseudoTCP while the socket is full closes its receive window: the peer slows down.
static void deliver_received(zrc_ice *ice) {
    if (ice->bridge_fd < 0) return;
    for (;;) {
        if (!flush_pending(ice)) {
            watch_writes(ice, TRUE);
            return;
        }
        if (!ice->tcp) return;
        gint count = pseudo_tcp_socket_recv(ice->tcp, ice->pending, sizeof ice->pending);
        if (count <= 0) break;
        ice->pending_length = (size_t)count;
    }
    watch_writes(ice, FALSE);
    // The peer finished sending (FIN) and everything it sent is out: end of stream for the caller.
    if (ice->tcp && pseudo_tcp_socket_is_closed_remotely(ice->tcp) && !ice->remote_finished) {
        ice->remote_finished = TRUE;
        shutdown(ice->bridge_fd, SHUT_WR);
        // The peer closed too, so it has read everything it wanted: a linger is over (waiting
        // for PseudoTCP's own end would add its TIME-WAIT).
        if (ice->lingering) end_linger_soon(ice);
    }
    schedule_clock(ice);  // reading may have opened the window: an update is due
}

static gboolean bridge_writable(gint fd, GIOCondition condition, gpointer data) {
    (void)fd;
    (void)condition;
    zrc_ice *ice = data;
    g_source_unref(ice->write_watch);
    ice->write_watch = NULL;
    deliver_received(ice);
    return G_SOURCE_REMOVE;
}

// Sends what the caller wrote and PseudoTCP has not yet taken. FALSE while its buffer is full.
static gboolean push_outgoing(zrc_ice *ice) {
    while (ice->outgoing_length > 0) {
        gint sent = pseudo_tcp_socket_send(ice->tcp, ice->outgoing + ice->outgoing_offset, (guint32)ice->outgoing_length);
        if (sent <= 0) return FALSE;  // EWOULDBLOCK: PseudoTcpWritable resumes
        ice->outgoing_offset += (size_t)sent;
        ice->outgoing_length -= (size_t)sent;
    }
    ice->outgoing_offset = 0;
    return TRUE;
}

// Moves the caller's bytes into PseudoTCP while it takes them; stops watching the socket while
// PseudoTCP's send buffer is full (PseudoTcpWritable resumes), so the caller's writes block
// instead of queuing without bound.
static void forward_sent(zrc_ice *ice) {
    while (ice->tcp && !ice->caller_closed) {
        if (!push_outgoing(ice)) {
            watch_reads(ice, FALSE);
            schedule_clock(ice);
            return;
        }
        ssize_t count = recv(ice->bridge_fd, ice->outgoing, sizeof ice->outgoing, 0);
        if (count < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            count = 0;
        }
        if (count == 0) {
            // The caller closed its end: finish sending what is queued, then close.
            ice->caller_closed = TRUE;
            watch_reads(ice, FALSE);
            pseudo_tcp_socket_close(ice->tcp, FALSE);
            schedule_clock(ice);
            return;
        }
        ice->outgoing_length = (size_t)count;
    }
    watch_reads(ice, TRUE);
    schedule_clock(ice);
}

static gboolean bridge_readable(gint fd, GIOCondition condition, gpointer data) {
    (void)fd;
    (void)condition;
    zrc_ice *ice = data;
    g_source_unref(ice->read_watch);
    ice->read_watch = NULL;
    forward_sent(ice);
    return G_SOURCE_REMOVE;
}

// ---- PseudoTCP callbacks ----

static void tcp_opened(PseudoTcpSocket *tcp, gpointer data) {
    (void)tcp;
    zrc_ice *ice = data;
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
        emit(ice, ZRC_ICE_FAILED, "cannot create the stream's socket pair");
        return;
    }
    // Small kernel buffers: backpressure reaches the caller instead of piling up between the two.
    int size = (int)MIN(ice->window, 256 * 1024);
    for (int i = 0; i < 2; i++) {
        setsockopt(pair[i], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        setsockopt(pair[i], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    }
    ice->bridge_fd = pair[0];
    ice->caller_fd = pair[1];
    watch_reads(ice, TRUE);
    emit(ice, ZRC_ICE_ESTABLISHED, NULL);
    deliver_received(ice);
}

static void tcp_readable(PseudoTcpSocket *tcp, gpointer data) {
    (void)tcp;
    deliver_received(data);
}

static void tcp_writable(PseudoTcpSocket *tcp, gpointer data) {
    (void)tcp;
    zrc_ice *ice = data;
    if (ice->bridge_fd >= 0) forward_sent(ice);
}

static void tcp_closed(PseudoTcpSocket *tcp, guint32 error, gpointer data) {
    (void)tcp;
    zrc_ice *ice = data;
    if (ice->tcp_closed) return;
    ice->tcp_closed = TRUE;
    deliver_received(ice);
    // The caller sees end of stream once what arrived is written.
    if (ice->bridge_fd >= 0 && ice->pending_length == 0) shutdown(ice->bridge_fd, SHUT_WR);
    emit(ice, ZRC_ICE_CLOSED, error ? g_strerror((int)error) : NULL);
    if (ice->lingering) end_linger_soon(ice);
}

// Ends a linger from the loop, right after the current callback (never inside PseudoTCP's own).
static void end_linger_soon(zrc_ice *ice) {
    if (ice->linger_source) {
        g_source_destroy(ice->linger_source);
        g_source_unref(ice->linger_source);
    }
    ice->linger_source = g_idle_source_new();
    g_source_set_callback(ice->linger_source, linger_over, ice, NULL);
    g_source_attach(ice->linger_source, zrc_loop_context());
}

static PseudoTcpWriteResult tcp_write_packet(PseudoTcpSocket *tcp, const gchar *buffer, guint32 length, gpointer data) {
    (void)tcp;
    zrc_ice *ice = data;
    gint sent = nice_agent_send(ice->agent, ice->stream_id, 1, length, buffer);
    // A datagram the path drops is PseudoTCP's to retransmit; only a packet too large is fatal.
    if (sent < 0 && errno == EMSGSIZE) return WR_TOO_LARGE;
    return WR_SUCCESS;
}

// ---- the agent ----

static void agent_received(NiceAgent *agent, guint stream_id, guint component_id, guint length, gchar *buffer, gpointer data) {
    (void)agent;
    (void)stream_id;
    (void)component_id;
    zrc_ice *ice = data;
    if (!ice->tcp) return;
    pseudo_tcp_socket_notify_packet(ice->tcp, buffer, length);
    // A FIN calls no callback: look for it after each packet.
    if (!ice->remote_finished && pseudo_tcp_socket_is_closed_remotely(ice->tcp)) deliver_received(ice);
    schedule_clock(ice);
}

static void candidate_to_zrc(const NiceCandidate *candidate, zrc_candidate *out) {
    memset(out, 0, sizeof *out);
    switch (candidate->type) {
    case NICE_CANDIDATE_TYPE_HOST: out->type = ZRC_CANDIDATE_HOST; break;
    case NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE: out->type = ZRC_CANDIDATE_SRFLX; break;
    case NICE_CANDIDATE_TYPE_PEER_REFLEXIVE: out->type = ZRC_CANDIDATE_PRFLX; break;
    case NICE_CANDIDATE_TYPE_RELAYED: out->type = ZRC_CANDIDATE_RELAY; break;
    }
    out->priority = candidate->priority;
    copy_text(out->foundation, sizeof out->foundation, candidate->foundation);
    char address[NICE_ADDRESS_STRING_LEN];
    nice_address_to_string(&candidate->addr, address);
    copy_text(out->address, sizeof out->address, address);
    out->port = (uint16_t)nice_address_get_port(&candidate->addr);
}

// The window is fixed before the stream opens: relayed paths get the relay's (coturn keeps a
// fixed 64 KiB socket buffer per allocation, and a larger window only overflows it).
// Asks for `wanted` bytes of receive buffer on the selected pair's socket (beyond the system's
// net.core.rmem_max only with CAP_NET_ADMIN) and returns the payload it can hold: the kernel
// counts each 1200-byte datagram at about twice its size, so a third of what it grants.
static guint socket_capacity(zrc_ice *ice, guint wanted) {
    GSocket *socket = nice_agent_get_selected_socket(ice->agent, ice->stream_id, 1);
    if (!socket) return wanted;
    int fd = g_socket_get_fd(socket);
    int size = (int)MIN(wanted, (guint)G_MAXINT / 2);
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    int granted = 0;
    socklen_t length = sizeof granted;
    guint capacity = wanted;
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &length) == 0 && granted > 0) capacity = (guint)granted / 3;
    g_object_unref(socket);
    // Never below what a small window needs to make progress.
    return MAX(capacity, 32 * 1024);
}

static void start_stream(zrc_ice *ice) {
    if (ice->tcp_started) return;
    NiceCandidate *local = NULL, *remote = NULL;
    if (!nice_agent_get_selected_pair(ice->agent, ice->stream_id, 1, &local, &remote)) return;
    gboolean relayed = local->type == NICE_CANDIDATE_TYPE_RELAYED || remote->type == NICE_CANDIDATE_TYPE_RELAYED;
    ice->window = relayed ? ice->options.relay_window_bytes : ice->options.window_bytes;
    // What we let the peer send must fit our UDP socket's buffer: beyond it, a burst that arrives
    // while this thread is busy is dropped by the kernel, and PseudoTCP's recovery from many
    // losses is slow (a 1 MiB window through the default 208 KiB buffer stalled for seconds).
    guint receive_window = MIN(ice->window, socket_capacity(ice, 4 * ice->window));
    ice->window = receive_window;
    g_object_set(ice->tcp, "rcv-buf", receive_window, "snd-buf", (guint)(relayed ? ice->options.relay_window_bytes : ice->options.window_bytes), NULL);
    ice->tcp_started = TRUE;
    // The controlled side opens the stream: it is the last to see the pair selected (it learns of
    // the nomination from the controlling side's check), so its SYN never reaches a peer that
    // still drops data on that pair (which cost a 1 s retransmission on relayed paths).
    if (!ice->options.controlling) pseudo_tcp_socket_connect(ice->tcp);
    schedule_clock(ice);
}

static void agent_gathering_done(NiceAgent *agent, guint stream_id, gpointer data) {
    (void)agent;
    (void)stream_id;
    zrc_ice *ice = data;
    ice->gathered = TRUE;
    emit(ice, ZRC_ICE_GATHERED, NULL);
}

static void agent_new_candidate(NiceAgent *agent, NiceCandidate *candidate, gpointer data) {
    (void)agent;
    zrc_ice *ice = data;
    if (candidate->transport != NICE_CANDIDATE_TRANSPORT_UDP) return;
    switch (candidate->type) {
    case NICE_CANDIDATE_TYPE_HOST: emit(ice, ZRC_ICE_CANDIDATE, "host"); break;
    case NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE: emit(ice, ZRC_ICE_CANDIDATE, "srflx"); break;
    case NICE_CANDIDATE_TYPE_RELAYED: emit(ice, ZRC_ICE_CANDIDATE, "relay"); break;
    case NICE_CANDIDATE_TYPE_PEER_REFLEXIVE: break;
    }
}

static void agent_state_changed(NiceAgent *agent, guint stream_id, guint component_id, guint state, gpointer data) {
    (void)agent;
    (void)stream_id;
    (void)component_id;
    zrc_ice *ice = data;
    if (state == NICE_COMPONENT_STATE_FAILED) {
        emit(ice, ZRC_ICE_FAILED, "no candidate pair answered the connectivity checks");
    } else if (state == NICE_COMPONENT_STATE_READY || state == NICE_COMPONENT_STATE_CONNECTED) {
        start_stream(ice);
    }
}

static void agent_selected_pair(NiceAgent *agent, guint stream_id, guint component_id, NiceCandidate *local,
                                NiceCandidate *remote, gpointer data) {
    (void)agent;
    (void)stream_id;
    (void)component_id;
    (void)local;
    (void)remote;
    zrc_ice *ice = data;
    emit(ice, ZRC_ICE_SELECTED, NULL);
    start_stream(ice);
}

typedef struct {
    zrc_ice *ice;
    char *error;
    size_t error_size;
    gboolean ok;
} NewCall;

static void create_on_loop(void *data) {
    NewCall *call = data;
    zrc_ice *ice = call->ice;
    // Aggressive nomination: the first working pair carries data at once.
    ice->agent = nice_agent_new_full(zrc_loop_context(), NICE_COMPATIBILITY_RFC5245, NICE_AGENT_OPTION_NONE);
    if (!ice->agent) {
        copy_text(call->error, call->error_size, "libnice could not create an agent");
        return;
    }
    // UDP only, no UPnP (its discovery delays gathering by seconds), fewer STUN retries so an
    // unreachable server costs about 1.4 s instead of 10, keepalive checks so a dead path is seen.
    g_object_set(ice->agent, "controlling-mode", ice->options.controlling ? TRUE : FALSE, "ice-tcp", FALSE, "upnp", FALSE,
                 "stun-max-retransmissions", 3, "stun-initial-timeout", 200, "keepalive-conncheck", TRUE,
                 "force-relay", ice->options.relay_only ? TRUE : FALSE, NULL);
    if (ice->stun_host) g_object_set(ice->agent, "stun-server", ice->stun_host, "stun-server-port", (guint)ice->options.stun_port, NULL);
    ice->stream_id = nice_agent_add_stream(ice->agent, 1);
    if (ice->stream_id == 0) {
        copy_text(call->error, call->error_size, "libnice could not add a stream");
        return;
    }
    for (int i = 0; i < ice->options.relay_count; i++) {
        if (!nice_agent_set_relay_info(ice->agent, ice->stream_id, 1, ice->relay_hosts[i], ice->options.relays[i].port,
                                       ice->relay_users[i], ice->relay_passwords[i],
                                       ice->options.relays[i].over_tcp ? NICE_RELAY_TYPE_TURN_TCP : NICE_RELAY_TYPE_TURN_UDP)) {
            snprintf(call->error, call->error_size, "libnice refused the relay %s:%u (it needs a numeric IP address)",
                     ice->relay_hosts[i], ice->options.relays[i].port);
            return;
        }
    }
    g_signal_connect(ice->agent, "candidate-gathering-done", G_CALLBACK(agent_gathering_done), ice);
    g_signal_connect(ice->agent, "component-state-changed", G_CALLBACK(agent_state_changed), ice);
    g_signal_connect(ice->agent, "new-candidate-full", G_CALLBACK(agent_new_candidate), ice);
    g_signal_connect(ice->agent, "new-selected-pair-full", G_CALLBACK(agent_selected_pair), ice);
    nice_agent_attach_recv(ice->agent, ice->stream_id, 1, zrc_loop_context(), agent_received, ice);

    PseudoTcpCallbacks callbacks = {
        .user_data = ice,
        .PseudoTcpOpened = tcp_opened,
        .PseudoTcpReadable = tcp_readable,
        .PseudoTcpWritable = tcp_writable,
        .PseudoTcpClosed = tcp_closed,
        .WritePacket = tcp_write_packet,
    };
    ice->tcp = pseudo_tcp_socket_new(ice->options.conversation, &callbacks);
    // Frames are latest-wins and small updates matter most: no Nagle delay. Acks wait 2 ms at
    // most (the default 100 ms held a 1 MiB window to 3 MB/s even on loopback).
    g_object_set(ice->tcp, "no-delay", TRUE, "ack-delay", 2, "rcv-buf", (guint)ice->window, "snd-buf", (guint)ice->window, NULL);
    // Segments that fit any path unfragmented, relays included (as QUIC assumes): PseudoTCP
    // otherwise starts at 64 KiB datagrams, which IP fragments across NATs lose as a whole.
    pseudo_tcp_socket_notify_mtu(ice->tcp, SEGMENT_MTU);
    if (!nice_agent_gather_candidates(ice->agent, ice->stream_id)) {
        copy_text(call->error, call->error_size, "libnice could not gather candidates (no usable network interface?)");
        return;
    }
    call->ok = TRUE;
}

static void free_on_loop(void *data);

zrc_ice *zrc_ice_new(const zrc_ice_options *options, zrc_ice_callback callback, void *context, char *error, size_t error_size) {
    if (options->relay_count < 0 || options->relay_count > ZRC_ICE_MAX_RELAYS) {
        copy_text(error, error_size, "too many relays");
        return NULL;
    }
    if (zrc_load_nice(error, error_size) != 0) return NULL;
    zrc_ice *ice = g_new0(zrc_ice, 1);
    ice->options = *options;
    ice->stun_host = g_strdup(options->stun_host);
    for (int i = 0; i < options->relay_count; i++) {
        ice->relay_hosts[i] = g_strdup(options->relays[i].host);
        ice->relay_users[i] = g_strdup(options->relays[i].username ? options->relays[i].username : "");
        ice->relay_passwords[i] = g_strdup(options->relays[i].password ? options->relays[i].password : "");
    }
    ice->callback = callback;
    ice->context = context;
    ice->bridge_fd = -1;
    ice->caller_fd = -1;
    ice->window = options->window_bytes;
    NewCall call = {.ice = ice, .error = error, .error_size = error_size, .ok = FALSE};
    zrc_loop_run_sync(create_on_loop, &call);
    if (!call.ok) {
        ice->callback = NULL;
        zrc_loop_run_sync(free_on_loop, ice);
        return NULL;
    }
    return ice;
}

typedef struct {
    zrc_ice *ice;
    char *ufrag, *password;
    size_t ufrag_size, password_size;
    zrc_candidate *candidates;
    int max;
    int count;
} LocalCall;

static void local_on_loop(void *data) {
    LocalCall *call = data;
    zrc_ice *ice = call->ice;
    gchar *ufrag = NULL, *password = NULL;
    if (nice_agent_get_local_credentials(ice->agent, ice->stream_id, &ufrag, &password)) {
        copy_text(call->ufrag, call->ufrag_size, ufrag);
        copy_text(call->password, call->password_size, password);
    }
    g_free(ufrag);
    g_free(password);
    GSList *list = nice_agent_get_local_candidates(ice->agent, ice->stream_id, 1);
    for (GSList *item = list; item; item = item->next) {
        NiceCandidate *candidate = item->data;
        if (call->count < call->max && candidate->transport == NICE_CANDIDATE_TRANSPORT_UDP) {
            candidate_to_zrc(candidate, &call->candidates[call->count++]);
        }
    }
    g_slist_free_full(list, (GDestroyNotify)nice_candidate_free);
}

int zrc_ice_local(zrc_ice *ice, char *ufrag, size_t ufrag_size, char *password, size_t password_size, zrc_candidate *candidates,
                  int max_candidates) {
    LocalCall call = {.ice = ice, .ufrag = ufrag, .password = password, .ufrag_size = ufrag_size,
                      .password_size = password_size, .candidates = candidates, .max = max_candidates, .count = 0};
    zrc_loop_run_sync(local_on_loop, &call);
    return call.count;
}

typedef struct {
    zrc_ice *ice;
    const char *ufrag, *password;
    const zrc_candidate *candidates;
    int count;
    char *error;
    size_t error_size;
    int result;
} RemoteCall;

static void remote_on_loop(void *data) {
    RemoteCall *call = data;
    zrc_ice *ice = call->ice;
    if (!nice_agent_set_remote_credentials(ice->agent, ice->stream_id, call->ufrag, call->password)) {
        copy_text(call->error, call->error_size, "libnice refused the peer's ICE credentials");
        call->result = -1;
        return;
    }
    GSList *list = NULL;
    for (int i = 0; i < call->count; i++) {
        const zrc_candidate *given = &call->candidates[i];
        NiceCandidateType type = NICE_CANDIDATE_TYPE_HOST;
        switch (given->type) {
        case ZRC_CANDIDATE_SRFLX: type = NICE_CANDIDATE_TYPE_SERVER_REFLEXIVE; break;
        case ZRC_CANDIDATE_PRFLX: type = NICE_CANDIDATE_TYPE_PEER_REFLEXIVE; break;
        case ZRC_CANDIDATE_RELAY: type = NICE_CANDIDATE_TYPE_RELAYED; break;
        default: break;
        }
        NiceCandidate *candidate = nice_candidate_new(type);
        candidate->transport = NICE_CANDIDATE_TRANSPORT_UDP;
        candidate->stream_id = ice->stream_id;
        candidate->component_id = 1;
        candidate->priority = given->priority;
        copy_text(candidate->foundation, sizeof candidate->foundation, given->foundation);
        if (!nice_address_set_from_string(&candidate->addr, given->address)) {
            nice_candidate_free(candidate);
            continue;  // the Swift side validated addresses; a stray one is skipped, not fatal
        }
        nice_address_set_port(&candidate->addr, given->port);
        list = g_slist_append(list, candidate);
    }
    int added = nice_agent_set_remote_candidates(ice->agent, ice->stream_id, 1, list);
    g_slist_free_full(list, (GDestroyNotify)nice_candidate_free);
    if (added < 0 || (call->count > 0 && added == 0)) {
        copy_text(call->error, call->error_size, "libnice accepted none of the peer's candidates");
        call->result = -1;
        return;
    }
    call->result = 0;
}

int zrc_ice_set_remote(zrc_ice *ice, const char *ufrag, const char *password, const zrc_candidate *candidates, int count,
                       char *error, size_t error_size) {
    RemoteCall call = {.ice = ice, .ufrag = ufrag, .password = password, .candidates = candidates, .count = count,
                       .error = error, .error_size = error_size, .result = -1};
    zrc_loop_run_sync(remote_on_loop, &call);
    return call.result;
}

typedef struct {
    zrc_ice *ice;
    zrc_candidate *local, *remote;
    int result;
} SelectedCall;

static void selected_on_loop(void *data) {
    SelectedCall *call = data;
    NiceCandidate *local = NULL, *remote = NULL;
    if (!nice_agent_get_selected_pair(call->ice->agent, call->ice->stream_id, 1, &local, &remote)) {
        call->result = -1;
        return;
    }
    candidate_to_zrc(local, call->local);
    candidate_to_zrc(remote, call->remote);
    call->result = 0;
}

int zrc_ice_selected(zrc_ice *ice, zrc_candidate *local, zrc_candidate *remote) {
    SelectedCall call = {.ice = ice, .local = local, .remote = remote, .result = -1};
    zrc_loop_run_sync(selected_on_loop, &call);
    return call.result;
}

typedef struct {
    zrc_ice *ice;
    int fd;
    uint32_t window;
} TakeCall;

static void take_on_loop(void *data) {
    TakeCall *call = data;
    call->fd = call->ice->caller_fd;
    call->ice->caller_fd = -1;
}

int zrc_ice_take_socket(zrc_ice *ice) {
    TakeCall call = {.ice = ice, .fd = -1};
    zrc_loop_run_sync(take_on_loop, &call);
    return call.fd;
}

static void window_on_loop(void *data) {
    TakeCall *call = data;
    call->window = call->ice->window;
}

uint32_t zrc_ice_window(zrc_ice *ice) {
    TakeCall call = {.ice = ice, .fd = -1, .window = 0};
    zrc_loop_run_sync(window_on_loop, &call);
    return call.window;
}

static void agent_closed(GObject *source, GAsyncResult *result, gpointer data) {
    (void)source;
    (void)result;
    g_object_unref(data);
}

static gboolean linger_over(gpointer data) {
    finish_free(data);
    return G_SOURCE_REMOVE;
}

// Ends the link: at once when no stream is open, else after the close reached the peer.
static void free_on_loop(void *data) {
    zrc_ice *ice = data;
    ice->callback = NULL;
    gboolean open = ice->tcp && ice->bridge_fd >= 0 && !ice->tcp_closed && !ice->remote_finished;
    if (!open) {
        finish_free(ice);
        return;
    }
    ice->lingering = TRUE;
    watch_reads(ice, FALSE);
    if (!ice->caller_closed) {
        ice->caller_closed = TRUE;
        pseudo_tcp_socket_close(ice->tcp, FALSE);
        schedule_clock(ice);
    }
    ice->linger_source = g_timeout_source_new(LINGER_MS);
    g_source_set_callback(ice->linger_source, linger_over, ice, NULL);
    g_source_attach(ice->linger_source, zrc_loop_context());
}

static void finish_free(zrc_ice *ice) {
    void (*done)(void *) = ice->done;
    void *done_context = ice->done_context;
    if (ice->linger_source) {
        g_source_destroy(ice->linger_source);
        g_source_unref(ice->linger_source);
        ice->linger_source = NULL;
    }
    watch_reads(ice, FALSE);
    watch_writes(ice, FALSE);
    if (ice->clock_source) {
        g_source_destroy(ice->clock_source);
        g_source_unref(ice->clock_source);
        ice->clock_source = NULL;
    }
    if (ice->tcp) {
        g_object_unref(ice->tcp);
        ice->tcp = NULL;
    }
    if (ice->agent) {
        if (ice->stream_id) nice_agent_attach_recv(ice->agent, ice->stream_id, 1, zrc_loop_context(), NULL, NULL);
        g_signal_handlers_disconnect_by_data(ice->agent, ice);
        // Releases TURN allocations on the server before the agent goes (else they linger for
        // their lifetime); the agent is unreferenced when that is done.
        nice_agent_close_async(ice->agent, agent_closed, ice->agent);
        ice->agent = NULL;
    }
    if (ice->bridge_fd >= 0) close(ice->bridge_fd);
    if (ice->caller_fd >= 0) close(ice->caller_fd);
    g_free(ice->stun_host);
    for (int i = 0; i < ZRC_ICE_MAX_RELAYS; i++) {
        g_free(ice->relay_hosts[i]);
        g_free(ice->relay_users[i]);
        g_free(ice->relay_passwords[i]);
    }
    g_free(ice);
    if (done) done(done_context);
}

void zrc_ice_free(zrc_ice *ice) {
    if (ice) zrc_loop_run_sync(free_on_loop, ice);
}

typedef struct {
    zrc_ice *ice;
    void (*done)(void *context);
    void *context;
} CloseCall;

static void close_on_loop(void *data) {
    CloseCall *call = data;
    call->ice->done = call->done;
    call->ice->done_context = call->context;
    free_on_loop(call->ice);
}

void zrc_ice_close(zrc_ice *ice, void (*done)(void *context), void *context) {
    CloseCall call = {.ice = ice, .done = done, .context = context};
    zrc_loop_run_sync(close_on_loop, &call);
}
