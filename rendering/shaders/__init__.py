"""GLSL sources, loaded by name with `rendering.gl_program.load_shader_source`."""
