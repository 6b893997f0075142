// libnice and Avahi, loaded when first used instead of when the program starts.
//
// Linked the usual way, libnice alone brings GnuTLS, GUPnP, libsoup, Kerberos, SQLite, libxml2
// and ICU into every process that links CReach, and the dynamic loader maps and relocates them
// all at start: about 5 MiB of a host's resident memory, and Avahi's client (D-Bus, systemd)
// 0.6 MiB more, for a host that may never reach anybody over ICE or the LAN. So neither is
// linked (their module maps name no library): the first zrc_ice_new, zrc_mdns_publish or
// zrc_mdns_browse opens them with dlopen and looks up the functions below, and the rest of
// CReach calls them through these tables, with the types the libraries' own headers declare.
//
// ice_link.c and lan_discovery.c include this file after the libraries' headers: from there on,
// each function's name stands for its entry in the table (the #defines at the end). Add a
// function the C code starts calling to its library's list, and to the #defines.
#ifndef ZRC_REACH_LIBRARIES_H
#define ZRC_REACH_LIBRARIES_H

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/domain.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-glib/glib-watch.h>
#include <nice/agent.h>
#include <nice/pseudotcp.h>
#include <stddef.h>

// The sonames the headers above describe (Debian: libnice10, libavahi-client3, libavahi-glib1;
// libavahi-common3 comes with them). Tools/package.sh names their packages in Depends, since
// dpkg-shlibdeps does not see a library that is opened, not linked.
#define ZRC_NICE_LIBRARY "libnice.so.10"
#define ZRC_AVAHI_CLIENT_LIBRARY "libavahi-client.so.3"
#define ZRC_AVAHI_GLIB_LIBRARY "libavahi-glib.so.1"

#define ZRC_NICE_FUNCTIONS(X)              \
    X(nice_address_get_port)               \
    X(nice_address_set_from_string)        \
    X(nice_address_set_port)               \
    X(nice_address_to_string)              \
    X(nice_agent_add_stream)               \
    X(nice_agent_attach_recv)              \
    X(nice_agent_close_async)              \
    X(nice_agent_gather_candidates)        \
    X(nice_agent_get_local_candidates)     \
    X(nice_agent_get_local_credentials)    \
    X(nice_agent_get_selected_pair)        \
    X(nice_agent_get_selected_socket)      \
    X(nice_agent_new_full)                 \
    X(nice_agent_send)                     \
    X(nice_agent_set_relay_info)           \
    X(nice_agent_set_remote_candidates)    \
    X(nice_agent_set_remote_credentials)   \
    X(nice_candidate_free)                 \
    X(nice_candidate_new)                  \
    X(pseudo_tcp_socket_close)             \
    X(pseudo_tcp_socket_connect)           \
    X(pseudo_tcp_socket_get_next_clock)    \
    X(pseudo_tcp_socket_is_closed_remotely) \
    X(pseudo_tcp_socket_new)               \
    X(pseudo_tcp_socket_notify_clock)      \
    X(pseudo_tcp_socket_notify_mtu)        \
    X(pseudo_tcp_socket_notify_packet)     \
    X(pseudo_tcp_socket_recv)              \
    X(pseudo_tcp_socket_send)

// avahi-common's functions are found through either library (both depend on it).
#define ZRC_AVAHI_FUNCTIONS(X)                  \
    X(avahi_address_snprint)                    \
    X(avahi_alternative_service_name)           \
    X(avahi_client_errno)                       \
    X(avahi_client_free)                        \
    X(avahi_client_new)                         \
    X(avahi_entry_group_add_service_strlst)     \
    X(avahi_entry_group_commit)                 \
    X(avahi_entry_group_get_client)             \
    X(avahi_entry_group_is_empty)               \
    X(avahi_entry_group_new)                    \
    X(avahi_entry_group_reset)                  \
    X(avahi_free)                               \
    X(avahi_glib_poll_free)                     \
    X(avahi_glib_poll_get)                      \
    X(avahi_glib_poll_new)                      \
    X(avahi_is_valid_service_name)              \
    X(avahi_is_valid_service_type_strict)       \
    X(avahi_service_browser_new)                \
    X(avahi_service_resolver_free)              \
    X(avahi_service_resolver_new)               \
    X(avahi_strerror)                           \
    X(avahi_string_list_add)                    \
    X(avahi_string_list_free)                   \
    X(avahi_string_list_get_next)               \
    X(avahi_string_list_get_pair)

#define ZRC_LIBRARY_ENTRY(name) __typeof__(&name) name;
struct zrc_nice_functions { ZRC_NICE_FUNCTIONS(ZRC_LIBRARY_ENTRY) };
struct zrc_avahi_functions { ZRC_AVAHI_FUNCTIONS(ZRC_LIBRARY_ENTRY) };
#undef ZRC_LIBRARY_ENTRY

/// Filled by the loaders below; read-only once they have succeeded.
extern struct zrc_nice_functions zrc_nice;
extern struct zrc_avahi_functions zrc_avahi;

/// Opens the library once (later calls return the first outcome; safe from any thread):
/// 0 when every function is there, else -1 with why in `error`.
int zrc_load_nice(char *error, size_t error_size);
int zrc_load_avahi(char *error, size_t error_size);

#ifndef ZRC_REACH_LIBRARIES_LOADER
#define nice_address_get_port zrc_nice.nice_address_get_port
#define nice_address_set_from_string zrc_nice.nice_address_set_from_string
#define nice_address_set_port zrc_nice.nice_address_set_port
#define nice_address_to_string zrc_nice.nice_address_to_string
#define nice_agent_add_stream zrc_nice.nice_agent_add_stream
#define nice_agent_attach_recv zrc_nice.nice_agent_attach_recv
#define nice_agent_close_async zrc_nice.nice_agent_close_async
#define nice_agent_gather_candidates zrc_nice.nice_agent_gather_candidates
#define nice_agent_get_local_candidates zrc_nice.nice_agent_get_local_candidates
#define nice_agent_get_local_credentials zrc_nice.nice_agent_get_local_credentials
#define nice_agent_get_selected_pair zrc_nice.nice_agent_get_selected_pair
#define nice_agent_get_selected_socket zrc_nice.nice_agent_get_selected_socket
#define nice_agent_new_full zrc_nice.nice_agent_new_full
#define nice_agent_send zrc_nice.nice_agent_send
#define nice_agent_set_relay_info zrc_nice.nice_agent_set_relay_info
#define nice_agent_set_remote_candidates zrc_nice.nice_agent_set_remote_candidates
#define nice_agent_set_remote_credentials zrc_nice.nice_agent_set_remote_credentials
#define nice_candidate_free zrc_nice.nice_candidate_free
#define nice_candidate_new zrc_nice.nice_candidate_new
#define pseudo_tcp_socket_close zrc_nice.pseudo_tcp_socket_close
#define pseudo_tcp_socket_connect zrc_nice.pseudo_tcp_socket_connect
#define pseudo_tcp_socket_get_next_clock zrc_nice.pseudo_tcp_socket_get_next_clock
#define pseudo_tcp_socket_is_closed_remotely zrc_nice.pseudo_tcp_socket_is_closed_remotely
#define pseudo_tcp_socket_new zrc_nice.pseudo_tcp_socket_new
#define pseudo_tcp_socket_notify_clock zrc_nice.pseudo_tcp_socket_notify_clock
#define pseudo_tcp_socket_notify_mtu zrc_nice.pseudo_tcp_socket_notify_mtu
#define pseudo_tcp_socket_notify_packet zrc_nice.pseudo_tcp_socket_notify_packet
#define pseudo_tcp_socket_recv zrc_nice.pseudo_tcp_socket_recv
#define pseudo_tcp_socket_send zrc_nice.pseudo_tcp_socket_send

#define avahi_address_snprint zrc_avahi.avahi_address_snprint
#define avahi_alternative_service_name zrc_avahi.avahi_alternative_service_name
#define avahi_client_errno zrc_avahi.avahi_client_errno
#define avahi_client_free zrc_avahi.avahi_client_free
#define avahi_client_new zrc_avahi.avahi_client_new
#define avahi_entry_group_add_service_strlst zrc_avahi.avahi_entry_group_add_service_strlst
#define avahi_entry_group_commit zrc_avahi.avahi_entry_group_commit
#define avahi_entry_group_get_client zrc_avahi.avahi_entry_group_get_client
#define avahi_entry_group_is_empty zrc_avahi.avahi_entry_group_is_empty
#define avahi_entry_group_new zrc_avahi.avahi_entry_group_new
#define avahi_entry_group_reset zrc_avahi.avahi_entry_group_reset
#define avahi_free zrc_avahi.avahi_free
#define avahi_glib_poll_free zrc_avahi.avahi_glib_poll_free
#define avahi_glib_poll_get zrc_avahi.avahi_glib_poll_get
#define avahi_glib_poll_new zrc_avahi.avahi_glib_poll_new
#define avahi_is_valid_service_name zrc_avahi.avahi_is_valid_service_name
#define avahi_is_valid_service_type_strict zrc_avahi.avahi_is_valid_service_type_strict
#define avahi_service_browser_new zrc_avahi.avahi_service_browser_new
#define avahi_service_resolver_free zrc_avahi.avahi_service_resolver_free
#define avahi_service_resolver_new zrc_avahi.avahi_service_resolver_new
#define avahi_strerror zrc_avahi.avahi_strerror
#define avahi_string_list_add zrc_avahi.avahi_string_list_add
#define avahi_string_list_free zrc_avahi.avahi_string_list_free
#define avahi_string_list_get_next zrc_avahi.avahi_string_list_get_next
#define avahi_string_list_get_pair zrc_avahi.avahi_string_list_get_pair
#endif

#endif
