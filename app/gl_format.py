"""Ask for an OpenGL 3.3 core context before the QApplication exists."""

from __future__ import annotations

from PySide6.QtGui import QSurfaceFormat

GL_VERSION = (3, 3)


def install_default_format() -> None:
    fmt = QSurfaceFormat()
    fmt.setVersion(*GL_VERSION)
    fmt.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    fmt.setDepthBufferSize(24)
    fmt.setStencilBufferSize(8)
    fmt.setSamples(0)
    QSurfaceFormat.setDefaultFormat(fmt)
