print("scratchbench")
