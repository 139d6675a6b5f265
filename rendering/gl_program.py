"""Compile and link a GLSL program, and set its uniforms by name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from OpenGL import GL

SHADER_DIR = Path(__file__).resolve().parent / "shaders"


class ShaderError(RuntimeError):
    """A shader failed to compile or link; the message carries the driver's log."""


def load_shader_source(name: str) -> str:
    return (SHADER_DIR / name).read_text(encoding="utf-8")


def _text(log) -> str:
    return log.decode(errors="replace") if isinstance(log, bytes) else str(log)


def _compile(kind: int, source: str, label: str) -> int:
    shader = GL.glCreateShader(kind)
    GL.glShaderSource(shader, source)
    GL.glCompileShader(shader)
    if not GL.glGetShaderiv(shader, GL.GL_COMPILE_STATUS):
        log = _text(GL.glGetShaderInfoLog(shader))
        GL.glDeleteShader(shader)
        raise ShaderError(f"{label}: {log}")
    return shader


class ShaderProgram:
    """A linked program; needs a current context for every call."""

    def __init__(self, vertex_source: str, fragment_source: str, label: str = "shader") -> None:
        vs = _compile(GL.GL_VERTEX_SHADER, vertex_source, f"{label} (vertex)")
        try:
            fs = _compile(GL.GL_FRAGMENT_SHADER, fragment_source, f"{label} (fragment)")
        except ShaderError:
            GL.glDeleteShader(vs)
            raise
        program = GL.glCreateProgram()
        GL.glAttachShader(program, vs)
        GL.glAttachShader(program, fs)
        GL.glLinkProgram(program)
        GL.glDeleteShader(vs)
        GL.glDeleteShader(fs)
        if not GL.glGetProgramiv(program, GL.GL_LINK_STATUS):
            log = _text(GL.glGetProgramInfoLog(program))
            GL.glDeleteProgram(program)
            raise ShaderError(f"{label} (link): {log}")
        self.id = int(program)
        self._locations: dict[str, int] = {}

    @classmethod
    def from_files(cls, vertex_name: str, fragment_name: str) -> ShaderProgram:
        return cls(load_shader_source(vertex_name), load_shader_source(fragment_name),
                   label=f"{vertex_name}+{fragment_name}")

    def use(self) -> None:
        GL.glUseProgram(self.id)

    def location(self, name: str) -> int:
        if name not in self._locations:
            self._locations[name] = int(GL.glGetUniformLocation(self.id, name))
        return self._locations[name]

    def set_uniform(self, name: str, value) -> None:
        """Set a uniform from its Python value: int, float, 2/3/4-vector or 3x3/4x4 matrix."""
        loc = self.location(name)
        if loc < 0:  # optimised away or not declared: nothing to set
            return
        if isinstance(value, (bool, int, np.integer)):
            GL.glUniform1i(loc, int(value))
            return
        if isinstance(value, (float, np.floating)):
            GL.glUniform1f(loc, float(value))
            return
        a = np.asarray(value, np.float32)
        if a.shape == (4, 4):
            GL.glUniformMatrix4fv(loc, 1, GL.GL_TRUE, a)  # row-major numpy → transpose on upload
        elif a.shape == (3, 3):
            GL.glUniformMatrix3fv(loc, 1, GL.GL_TRUE, a)
        elif a.shape == (2,):
            GL.glUniform2f(loc, *a)
        elif a.shape == (3,):
            GL.glUniform3f(loc, *a)
        elif a.shape == (4,):
            GL.glUniform4f(loc, *a)
        else:
            raise ValueError(f"unsupported uniform shape {a.shape} for {name!r}")

    def delete(self) -> None:
        if self.id:
            GL.glDeleteProgram(self.id)
            self.id = 0


def feedback_program(vertex_source: str, varyings: tuple[str, ...], label: str) -> int:
    """A vertex-only program whose `varyings` are captured interleaved by transform feedback (tests
    read back what a shader computed, to compare it with the CPU reference)."""
    import ctypes

    vs = _compile(GL.GL_VERTEX_SHADER, vertex_source, label)
    program = GL.glCreateProgram()
    GL.glAttachShader(program, vs)
    names = [n.encode() for n in varyings]
    array = (ctypes.c_char_p * len(names))(*names)
    GL.glTransformFeedbackVaryings(program, len(names), ctypes.cast(array, ctypes.POINTER(
        ctypes.POINTER(GL.GLchar))), GL.GL_INTERLEAVED_ATTRIBS)
    GL.glLinkProgram(program)
    GL.glDeleteShader(vs)
    if not GL.glGetProgramiv(program, GL.GL_LINK_STATUS):
        log = GL.glGetProgramInfoLog(program)
        GL.glDeleteProgram(program)
        raise ShaderError(f"{label} (link): {log!r}")
    return int(program)


def capture_points(count: int, out: np.ndarray) -> None:
    """Draw `count` points with the bound program and vertex array, rasterising nothing, and read
    what transform feedback captured into `out` (float32, sized for it)."""
    import ctypes

    buf = int(GL.glGenBuffers(1))
    GL.glBindBuffer(GL.GL_TRANSFORM_FEEDBACK_BUFFER, buf)
    GL.glBufferData(GL.GL_TRANSFORM_FEEDBACK_BUFFER, out.nbytes, None, GL.GL_STATIC_READ)
    GL.glBindBufferBase(GL.GL_TRANSFORM_FEEDBACK_BUFFER, 0, buf)
    GL.glEnable(GL.GL_RASTERIZER_DISCARD)
    GL.glBeginTransformFeedback(GL.GL_POINTS)
    GL.glDrawArrays(GL.GL_POINTS, 0, count)
    GL.glEndTransformFeedback()
    GL.glDisable(GL.GL_RASTERIZER_DISCARD)
    GL.glFinish()
    ptr = GL.glMapBufferRange(GL.GL_TRANSFORM_FEEDBACK_BUFFER, 0, out.nbytes, GL.GL_MAP_READ_BIT)
    ctypes.memmove(out.ctypes.data, ptr, out.nbytes)
    GL.glUnmapBuffer(GL.GL_TRANSFORM_FEEDBACK_BUFFER)
    GL.glBindBufferBase(GL.GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0)
    GL.glBindBuffer(GL.GL_TRANSFORM_FEEDBACK_BUFFER, 0)
    GL.glDeleteBuffers(1, [buf])
