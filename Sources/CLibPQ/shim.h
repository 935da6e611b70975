// The C edge of the store room's shared pool: libpq (Debian's libpq-dev), PostgreSQL's
// client library. Only ScratchStore imports this module; the core and the card's rules
// never see a PGconn pointer.
#ifndef SCRATCHCARD_CLIBPQ_SHIM_H
#define SCRATCHCARD_CLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
