print("scratchcard: not built yet")
