"""OpenGL calls without PyOpenGL's per-call checks, for loops that make thousands of them.

PyOpenGL converts every argument and asks `glGetError` after every call: a first frame of a big
forest uploads and sets up thousands of chunks, where those wrappers cost more than the calls. A
loop of these is followed by a checked call, which reports any error the loop left (the error flag
stays set until it is read). (The per-frame draw loops stay checked: they are what the viewport
bench weighs the frame's bookkeeping against.)
"""

from __future__ import annotations

import ctypes

from OpenGL import GL
from OpenGL.raw.GL.VERSION import GL_1_5, GL_2_0, GL_3_0, GL_3_3

bind_buffer = GL_1_5.glBindBuffer
buffer_data = GL_1_5.glBufferData
bind_vertex_array = GL_3_0.glBindVertexArray
enable_attribute = GL_2_0.glEnableVertexAttribArray
disable_attribute = GL_2_0.glDisableVertexAttribArray
attribute_divisor = GL_3_3.glVertexAttribDivisor


def float_attribute(location: int, size: int, stride: int, offset: int) -> None:
    """`glVertexAttribPointer` of `size` floats at byte `offset` of the bound array buffer."""
    GL_2_0.glVertexAttribPointer(location, size, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(offset))
