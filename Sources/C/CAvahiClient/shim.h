#include <avahi-client/client.h>
