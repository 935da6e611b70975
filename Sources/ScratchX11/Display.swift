// The display connection, window, framebuffers, input, DPI: see DESIGN.md.
