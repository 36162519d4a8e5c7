"""The Draw page's views, split by job, and the session keys they share.

``canvas``: the drawing panel (canvas or cell grid); ``input``: the browser-side grid and Clear
button; ``model``: the model picker and the shared default model; ``verdict``: what the model
sees and what it says; ``maps``: the feature maps; ``charts``: the Plotly figures.
"""

CANVAS = "draw.canvas"  # the canvas widget; one key for good, so reruns never remount it
MODEL = "draw.model"  # "run" (the session's last trained run) or "default"
MODE = "draw.mode"  # "canvas" or "cells"
BRUSH = "draw.brush"  # brush width in canvas pixels
CELLS = "draw.cells"  # the cell grid: 64 booleans, row by row
