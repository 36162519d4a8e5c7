"""The Draw page's views, split by job, and the session keys they share.

``canvas``: the drawing panel (canvas or cell grid); ``input``: the browser-side grid and Clear
button; ``model``: the model picker and the shared default model; ``verdict``: what the model
sees and what it says; ``maps``: the feature maps; ``charts``: the Plotly figures.
"""

CANVAS = "draw.canvas"  # the canvas widget; one key for good, so reruns never remount it
KEPT = "draw.canvas_kept"  # the canvas's last drawing, kept for a canvas drawn anew (back from another page)
SEED = "draw.canvas_seed"  # the drawing the canvas on screen started from; fixed while it stays
MODEL = "draw.model"  # the picked run's number, or "default" for the default model
SEEN = "draw.model_seen"  # the newest run the picker has offered; a newer one replaces it if it was picked
GONE = "draw.model_gone"  # the notice that the picked run is gone (cleared or dropped) and what is used
MODE = "draw.mode"  # "canvas" or "cells"
BRUSH = "draw.brush"  # brush width in canvas pixels
CELLS = "draw.cells"  # the cell grid: 64 booleans, row by row
