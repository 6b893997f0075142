// The GLib side of ZRC's reach: one GLib main context on its own thread, shared by the ICE links
// (libnice agents with a PseudoTCP stream each) and LAN discovery (Avahi). Everything that touches
// GLib objects runs on that thread; the functions below are safe to call from any other thread
// (never from a callback). Callbacks run on the GLib thread and must return quickly.
#ifndef ZRC_REACH_H
#define ZRC_REACH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- ICE links -------------------------------------------------------------------------------

enum {
    ZRC_CANDIDATE_HOST = 0,
    ZRC_CANDIDATE_SRFLX = 1,
    ZRC_CANDIDATE_PRFLX = 2,
    ZRC_CANDIDATE_RELAY = 3,
};

/// One UDP candidate as exchanged through the rendezvous.
typedef struct {
    int type;
    uint32_t priority;
    char foundation[33];
    char address[64];
    uint16_t port;
} zrc_candidate;

enum {
    ZRC_ICE_GATHERED = 1,     // local candidates are ready (detail: NULL)
    ZRC_ICE_SELECTED = 2,     // a candidate pair was selected (or changed)
    ZRC_ICE_ESTABLISHED = 3,  // the PseudoTCP stream is open: take the socket with zrc_ice_take_socket
    ZRC_ICE_FAILED = 4,       // detail: why
    ZRC_ICE_CLOSED = 5,       // the stream ended (detail: NULL, or why)
    ZRC_ICE_CANDIDATE = 6,    // a local candidate was gathered (detail: its type, "host", "srflx" or "relay")
};

typedef void (*zrc_ice_callback)(void *context, int event, const char *detail);

#define ZRC_ICE_MAX_RELAYS 4

typedef struct {
    const char *host;
    uint16_t port;
    const char *username;
    const char *password;
    int over_tcp;
} zrc_ice_relay;

typedef struct {
    int controlling;
    const char *stun_host;  // NULL: no STUN server
    uint16_t stun_port;
    int relay_count;
    zrc_ice_relay relays[ZRC_ICE_MAX_RELAYS];
    int relay_only;           // only relayed candidates (privacy: the peer never learns our address)
    uint32_t window_bytes;    // PseudoTCP send and receive buffer
    uint32_t relay_window_bytes;  // the same when the selected path is relayed
    // PseudoTCP's conversation number: derived from the offer's nonce, which only the two sides
    // know (it travels sealed), so nobody else can forge a segment (an RST) the stream accepts.
    uint32_t conversation;
} zrc_ice_options;

typedef struct zrc_ice zrc_ice;

/// Starts an agent and its candidate gathering. NULL with `error` filled when it cannot start.
// Writes what `buffer` holds from *offset (*length bytes) to `fd`, advancing both. TRUE when
// everything is out or the peer is gone (then both are 0: nothing more to deliver); FALSE while
// the socket is full. Exposed for tests that break the socket under it.
int zrc_flush_pending(int fd, const char *buffer, size_t *offset, size_t *length);

zrc_ice *zrc_ice_new(const zrc_ice_options *options, zrc_ice_callback callback, void *context, char *error, size_t error_size);
/// Local ICE credentials and candidates, once gathered; returns the number of candidates written.
int zrc_ice_local(zrc_ice *ice, char *ufrag, size_t ufrag_size, char *password, size_t password_size,
                  zrc_candidate *candidates, int max_candidates);
/// The peer's credentials and candidates: starts the connectivity checks. 0 on success.
int zrc_ice_set_remote(zrc_ice *ice, const char *ufrag, const char *password, const zrc_candidate *candidates, int count,
                       char *error, size_t error_size);
/// The selected pair; 0 when there is one.
int zrc_ice_selected(zrc_ice *ice, zrc_candidate *local, zrc_candidate *remote);
/// The caller's end of the stream (a connected non-blocking AF_UNIX stream socket), once
/// ESTABLISHED; -1 before, or when already taken. The caller owns and closes it.
int zrc_ice_take_socket(zrc_ice *ice);
/// The PseudoTCP window chosen for the selected path.
uint32_t zrc_ice_window(zrc_ice *ice);
/// Ends the link and frees it. No callback runs after this returns; an open stream is closed in
/// the background (its FIN exchange, 3 s at most).
void zrc_ice_free(zrc_ice *ice);
/// As zrc_ice_free, and `done(context)` runs on the GLib thread once the stream's close has
/// reached the peer (or 3 s passed) and everything is freed.
void zrc_ice_close(zrc_ice *ice, void (*done)(void *context), void *context);
/// coturn REST credentials: base64(HMAC-SHA1(secret, username)) into `out`; 0 on success.
int zrc_turn_rest_password(const char *secret, const char *username, char *out, size_t out_size);

// ---- LAN discovery (Avahi) -------------------------------------------------------------------

typedef struct zrc_mdns zrc_mdns;

enum {
    ZRC_MDNS_FOUND = 1,    // name, address, port, txt ("k=v\n" lines) describe a resolved service
    ZRC_MDNS_REMOVED = 2,  // name
    ZRC_MDNS_DONE = 3,     // the initial browse finished (all cached and answered entries reported)
    ZRC_MDNS_FAILED = 4,   // detail in name
    ZRC_MDNS_PUBLISHED = 5,  // name: the (possibly renamed) published service
};

typedef void (*zrc_mdns_callback)(void *context, int event, const char *name, const char *address, uint16_t port,
                                  const char *txt);

/// Publishes service `type` (e.g. `_zrc._tcp`) on `port` with TXT records (`txt`: `count` "k=v"
/// strings). Keeps it published (re-registering after an avahi-daemon restart) until freed.
zrc_mdns *zrc_mdns_publish(const char *type, const char *name, uint16_t port, const char *const *txt, int count, zrc_mdns_callback callback,
                           void *context, char *error, size_t error_size);
/// Browses service `type` and resolves what it finds.
zrc_mdns *zrc_mdns_browse(const char *type, zrc_mdns_callback callback, void *context, char *error, size_t error_size);
/// Stops and frees. No callback runs after this returns.
void zrc_mdns_free(zrc_mdns *mdns);

#ifdef __cplusplus
}
#endif

#endif
