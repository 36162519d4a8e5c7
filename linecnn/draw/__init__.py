"""The Draw page's core: canvas pixels to the CNN's input, and one prediction."""
