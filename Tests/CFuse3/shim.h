// libfuse 3 for the power-cut test's file system (Tests/PowerCutFS, C): the module
// carries pkg-config's flags for it; no Swift code imports it.
#define FUSE_USE_VERSION 31
#include <fuse.h>
