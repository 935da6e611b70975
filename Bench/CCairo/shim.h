// The C edge of scratchbench's comparison engine (cairo strokes the mask, pixman
// composites) and of assetmaker's icons (cairo). Nothing in the card itself links these.
#ifndef SCRATCHCARD_CCAIRO_SHIM_H
#define SCRATCHCARD_CCAIRO_SHIM_H

#include <cairo.h>
#include <pixman.h>

#endif
