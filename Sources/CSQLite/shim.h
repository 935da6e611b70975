// The C edge of the store room: SQLite (Debian's libsqlite3-dev). Only ScratchStore
// imports this module; the core and the card's rules never see a sqlite3 pointer.
#ifndef SCRATCHCARD_CSQLITE_SHIM_H
#define SCRATCHCARD_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot
// import: bound text is copied by SQLite before the bind returns.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
