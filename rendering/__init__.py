"""OpenGL 3.3 core: shaders, GPU buffers, terrain and foliage renderers, picking."""
