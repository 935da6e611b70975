// PNG in and out, image scaling: see DESIGN.md.
