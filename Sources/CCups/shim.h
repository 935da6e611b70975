// The C edge of the printing room: libcups (Debian's libcups2-dev), CUPS's client
// library. Only Sources/TicketPrinter imports this module; no http_t or cups_dest_t
// pointer leaves it. (libcups ships no pkg-config file: the library is linked by name.)
#ifndef SCRATCHCARD_CCUPS_SHIM_H
#define SCRATCHCARD_CCUPS_SHIM_H

#include <cups/cups.h>

#endif
