// libmosquitto for Swift, opened when first used instead of linked.
//
// Linked the usual way, libmosquitto brings OpenSSL (libssl, libcrypto) into every process that
// links ZRCMQTT, mapped and relocated at start: 1.8 MiB of a host's resident memory for a broker
// it may never use. So the library is not linked: zrc_mosquitto_load opens it with dlopen, and
// the functions ZRC calls (declared by <mosquitto.h> as usual) are defined in this module as
// forwarders to the library's own. Call zrc_mosquitto_load, and see it succeed, before any other.
#ifndef ZRC_MOSQUITTO_H
#define ZRC_MOSQUITTO_H

#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <stddef.h>

/// The soname <mosquitto.h> describes (Debian: libmosquitto1; Tools/package.sh names it in Depends).
#define ZRC_MOSQUITTO_LIBRARY "libmosquitto.so.1"

/// Opens libmosquitto once (later calls return the first outcome; safe from any thread): 0 when
/// every function is there, else -1 with why in `error`.
int zrc_mosquitto_load(char *error, size_t error_size);

#endif
