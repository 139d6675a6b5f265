"""File formats: one module per format, each with read, write and one FormatError."""
