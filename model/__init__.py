"""Boscage's model: pure Python and numpy. Never imports Qt, OpenGL or pyqtgraph."""
