// Test-only C edge: the socket protocol of Xorg's inputtest input driver (man
// inputtest(4)), from xserver-xorg-dev. Structs and constants only: nothing to link.
// Included by its own path: the rest of /usr/include/xorg is the server's internals.
#ifndef SCRATCHCARD_CINPUTTEST_SHIM_H
#define SCRATCHCARD_CINPUTTEST_SHIM_H
#include <stdint.h>
#include "/usr/include/xorg/xf86-input-inputtest-protocol.h"
#endif
