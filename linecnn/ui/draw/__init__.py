"""The Draw page's views: the model picker, the inputs, the charts."""

from linecnn.ui.draw.model import MODEL

__all__ = ["MODEL"]
