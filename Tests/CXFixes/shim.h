// Test-only C edge: XFixes, so tests can see the cursor image the server shows.
#ifndef SCRATCHCARD_CXFIXES_SHIM_H
#define SCRATCHCARD_CXFIXES_SHIM_H
#include <X11/Xlib.h>
#include <X11/extensions/Xfixes.h>
#endif
