// The C edge of CardArt, the room that draws cards: cairo for shapes, gradients and
// pixels, Pango (over fontconfig, FreeType and HarfBuzz) for text in any script.
// Nothing outside Sources/CardArt imports this module.
#ifndef SCRATCHCARD_CPANGOCAIRO_SHIM_H
#define SCRATCHCARD_CPANGOCAIRO_SHIM_H

#include <cairo.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>

/// PANGO_SCALE as a function: Pango's units per device pixel (1024).
static inline int cpc_pango_scale(void) { return PANGO_SCALE; }

/// Releases a GObject (a PangoLayout, a PangoFontMap): g_object_unref, typed.
static inline void cpc_unref(void *object) { if (object) g_object_unref(object); }

#endif
